// Runs generated cases through the browser module for tests/test_live_parity.py:
//   node parity_runner.mjs CASES.json [MODULE.js]   (MODULE: a copy of static/probcore.js, default the real one)
// A case is {"fn": name, "args": [...]}; numbers that JSON cannot hold travel as "inf", "-inf", "nan".
// Prints one JSON result per case: {"value": ...} or {"error": message} (ValueError) or {"crash": stack}.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [casesPath, modulePath = path.join(here, "static", "probcore.js")] = process.argv.slice(2);
const P = await import(pathToFileURL(path.resolve(modulePath)).href);
const special = { inf: Infinity, "-inf": -Infinity, nan: NaN };
const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"), (_, v) => (typeof v === "string" && v in special ? special[v] : v));
const results = cases.map(({ fn, args }) => {
  try {
    return { value: P[fn](...args) };
  } catch (err) {
    return err instanceof P.ValueError ? { error: err.message } : { crash: String(err.stack) };
  }
});
const encode = (_, v) => (ArrayBuffer.isView(v) ? Array.from(v)
  : typeof v === "number" && !Number.isFinite(v) ? (Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf") : v);
process.stdout.write(JSON.stringify(results, encode));

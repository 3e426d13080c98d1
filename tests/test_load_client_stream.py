"""bench/load_client.py's Stream cuts the server's websocket frames itself: it must read exactly the
ForwardMsgs the websockets library reads (short, 16-bit and 64-bit lengths, a message in several
frames, a ping between them, messages split across TCP reads and sent right behind the handshake's
response), answer pings, and say when the connection closes."""

from __future__ import annotations

import asyncio

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from bench.browser import free_port
from bench.load_client import Stream


def recorded() -> list[ForwardMsg]:
    """ForwardMsgs of the kinds a class run receives, of every frame-length class."""
    msgs = []
    m = ForwardMsg(hash="a" * 32)
    m.new_session.initialize.session_id = "session-1"
    msgs.append(m)
    for body in ("x" * 10, "y" * 300, "z" * 70_000):  # 7-bit, 16-bit, 64-bit payload lengths
        m = ForwardMsg(hash=body[:1] * 32)
        m.metadata.cacheable = len(body) > 1000
        m.delta.fragment_id = "frag"
        m.delta.new_element.markdown.body = body
        msgs.append(m)
    m = ForwardMsg()
    m.delta.new_element.slider.id = "$$ID-abc-x_1"
    m.delta.new_element.slider.max = 5.0
    msgs.append(m)
    msgs.append(ForwardMsg(ref_hash="z" * 32))
    msgs.append(ForwardMsg(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY))
    return msgs


async def serve_and_read(stream: bool) -> tuple[list[bytes], bool]:
    """Serve recorded() (the 70 kB one in four frames, a ping before the last) and read it all with
    a Stream (``stream``) or the library's own recv(); (messages as bytes, whether the ping was
    answered)."""
    msgs = [m.SerializeToString() for m in recorded()]
    answered = asyncio.Event()

    async def handler(ws) -> None:
        await ws.send(msgs[0])  # at once: may arrive in the handshake's TCP read
        for data in msgs[1:3]:
            await ws.send(data)
        await asyncio.sleep(0.1)  # the rest in later reads, cut by Stream itself
        big = msgs[3]
        await ws.send([big[:5], big[5:40_000], big[40_000:70_001], big[70_001:]])  # a fragmented message
        pong = await ws.ping()
        for data in msgs[4:]:
            await ws.send(data)
        await pong
        answered.set()
        await ws.close()

    port = free_port()
    async with serve(handler, "127.0.0.1", port, compression=None, max_size=None):
        got: list = []
        if stream:
            ws = await connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None, create_connection=Stream)
            await asyncio.wait_for(ws.wait_closed(), 10)
            got = list(ws.received)
            assert got[-1] is None and None not in got[:-1]  # closed once, after every message
            got = [m.SerializeToString() for m in got[:-1]]
        else:
            async with connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None) as ws:
                got = [await ws.recv() for _ in msgs]
        return got, answered.is_set()


def test_stream_reads_what_the_library_reads():
    by_stream, ponged = asyncio.run(serve_and_read(stream=True))
    by_library, _ = asyncio.run(serve_and_read(stream=False))
    assert by_stream == by_library == [m.SerializeToString() for m in recorded()]
    assert ponged

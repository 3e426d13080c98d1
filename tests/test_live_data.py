"""explorer.live.as_sent: a live view's data with its first-level lists as tuples. The view gets the same
JSON from Streamlit's serialisation, and Streamlit's search for data frames in the first level
(determine_data_format, ~0.1-0.2 ms a list) no longer looks into them."""

import json

from streamlit import dataframe_util
from streamlit.components.v2.bidi_component import serialization
from streamlit.proto.BidiComponent_pb2 import BidiComponent

from explorer.live import as_sent

DATA = {
    "logits": [1.2, 0.3, -0.5],
    "mappings": ["softmax", "sparsemax"],
    "params": [{"name": "temperature", "low": 0.05, "high": 5.0, "choices": []}],
    "kwargs": {"softmax": {"temperature": 1.0}, "sparsemax": {}},
    "labels": {"softmax": "softmax", "sparsemax": "sparsemax"},
    "handles": True,
    "bound": 10.0,
    "text": {"view_name": "Live chart"},
    "seq": 3,
}


def serialized(data: dict) -> str:
    proto = BidiComponent()
    serialization.serialize_mixed_data(data, proto)
    assert proto.WhichOneof("data") == "json"
    return proto.json


def test_the_view_gets_the_same_json():
    assert serialized(as_sent(DATA)) == serialized(DATA) == json.dumps(DATA)
    assert list(as_sent(DATA)) == list(DATA)


def test_streamlit_does_not_search_the_lists_for_data_frames(monkeypatch):
    looked_at = []
    real = dataframe_util.determine_data_format

    def determine(value):
        looked_at.append(value)
        return real(value)

    monkeypatch.setattr(dataframe_util, "determine_data_format", determine)
    serialized(DATA)
    assert any(isinstance(v, list) for v in looked_at)  # the lists, as the page sent them before
    looked_at.clear()
    serialized(as_sent(DATA))
    assert not any(isinstance(v, (list, tuple)) for v in looked_at)
    assert all(isinstance(v, dict) for v in looked_at)  # only the dicts are still looked into

"""explorer.live.as_sent: a live view's data as a one-item list. The view gets that data's JSON in a list
(live_core.js's mount takes its item), and Streamlit's search for data frames in the first level of a
dict (determine_data_format, ~0.02-0.2 ms a list or dict) looks into nothing."""

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


def test_the_view_gets_the_same_json_as_one_item():
    assert serialized(DATA) == json.dumps(DATA)
    assert serialized(as_sent(DATA)) == json.dumps([DATA])
    assert json.loads(serialized(as_sent(DATA)))[0] == DATA


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
    assert looked_at == []  # neither the lists nor the dicts are looked into

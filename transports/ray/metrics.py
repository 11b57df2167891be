"""Many replicas' Prometheus metrics as one exposition, each sample labelled with its replica.

    text = merge_metrics({"r1": replica_one_text, "r2": replica_two_text})

Every replica renders the same families (``transports.ws.metrics``); a scrape of any replica's
``/metrics`` behind Ray returns them all, told apart by a ``replica`` label, so the sums a
dashboard takes are the cluster's. Pure: no Ray here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

#: the label each sample gets: the replica whose metric it is
REPLICA_LABEL = "replica"


class _Merged(Collector):
    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts

    def collect(self) -> Iterator[Metric]:
        merged: dict[str, Metric] = {}
        for replica, text in sorted(self._texts.items()):
            for family in text_string_to_metric_families(text):
                into = merged.get(family.name)
                if into is None:
                    into = merged[family.name] = Metric(family.name, family.documentation, family.type)
                for sample in family.samples:
                    labels = {**sample.labels, REPLICA_LABEL: replica}
                    into.add_sample(sample.name, labels, sample.value, sample.timestamp, sample.exemplar)
        yield from merged.values()


def merge_metrics(texts: Mapping[str, str]) -> bytes:
    """The text exposition of every replica's metrics (``texts``: replica id to its exposition)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Merged(texts))
    return generate_latest(registry)


__all__ = ["REPLICA_LABEL", "merge_metrics"]

"""/metrics' usage per account: `translate_usage_{requests,characters,tokens,documents}_total`
labelled by account, read from the ledger's totals when scraped (nothing to update per
request); at most `MAX_ACCOUNT_LABELS` accounts, the others together as "other"."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from translate_server.limits.usage import MEASURES, UsageLedger


class UsageCollector(Collector):
    def __init__(self, ledger: UsageLedger) -> None:
        self.ledger = ledger

    def collect(self) -> Iterator[CounterMetricFamily]:
        totals = list(self.ledger.totals.items())
        for measure in MEASURES:
            family = CounterMetricFamily(
                f"translate_usage_{measure}",
                f"{measure.capitalize()} billed per account since the process started.",
                labels=["account"],
            )
            for account, counts in totals:
                family.add_metric([account or "shared"], getattr(counts, measure))
            yield family

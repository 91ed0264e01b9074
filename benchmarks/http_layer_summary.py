"""`http-layer`'s rounds summed up: medians per arm, the per-round ratios between the apps
(Litestar against FastAPI, each against the bare ASGI floor, what tracing adds), and the table."""

from __future__ import annotations

from benchmarks.http_layer_servers import BASELINE, TRACED_APPS
from translate_server.loadgen.stats import median

# Routes priced against another route of the same app, round by round (the goals of issue 51:
# a short string's /translate near chat's, a list of 50 near one string's).
ROUTE_RATIOS = (
    ("translate", "chat"),
    ("translate-short", "chat-short"),
    ("translate-50", "translate-short"),
)


def summarize_rounds(rounds: list[dict[str, dict[str, float]]], apis: list[str]) -> dict:
    """Medians per arm, and per API the medians of the per-round Litestar/FastAPI ratios."""
    arms = sorted({arm for r in rounds for arm in r})
    medians = {
        arm: {
            key: median([r[arm][key] for r in rounds if arm in r and key in r[arm]])
            for key in next(r[arm] for r in rounds if arm in r)
        }
        for arm in arms
    }
    ratio: dict[str, dict[str, float]] = {}
    for api in apis:
        ours, theirs = f"litestar {api}", f"fastapi {api}"
        for traced in TRACED_APPS:
            # What tracing adds to the service's CPU per request (median of per-round gaps).
            arm = f"{traced} {api}"
            with_arm = [r for r in rounds if arm in r and ours in r]
            if with_arm:
                ratio.setdefault(api, {})[f"{traced}_extra_us"] = median(
                    [
                        r[arm]["server_cpu_us_per_request"] - r[ours]["server_cpu_us_per_request"]
                        for r in with_arm
                    ]
                )
        before = f"{BASELINE} {api}"
        with_baseline = [r for r in rounds if before in r and ours in r]
        if with_baseline:
            # This checkout against the other, round by round (<1: this one spends less).
            ratio.setdefault(api, {})["cpu_vs_baseline"] = median(
                [
                    r[ours]["server_cpu_us_per_request"] / r[before]["server_cpu_us_per_request"]
                    for r in with_baseline
                ]
            )
        for route, other in ROUTE_RATIOS:
            for app in ("litestar", BASELINE):
                arm, against = f"{app} {route}", f"{app} {other}"
                both = [r for r in rounds if arm in r and against in r]
                if route == api and both:
                    ratio.setdefault(api, {})[f"{app}_cpu_vs_{other}"] = median(
                        [
                            r[arm]["server_cpu_us_per_request"]
                            / r[against]["server_cpu_us_per_request"]
                            for r in both
                        ]
                    )
        pairs = [r for r in rounds if ours in r and theirs in r]
        if not pairs:
            continue
        ratio.setdefault(api, {}).update(
            {
                "requests_per_s": median(
                    [r[ours]["requests_per_s"] / r[theirs]["requests_per_s"] for r in pairs]
                ),
                # >1: FastAPI spends that many times our CPU per request.
                "cpu_per_request": median(
                    [
                        r[theirs]["server_cpu_us_per_request"]
                        / r[ours]["server_cpu_us_per_request"]
                        for r in pairs
                    ]
                ),
            }
        )
        floor = f"floor {api}"
        with_floor = [r for r in pairs if floor in r]
        if with_floor:
            # Each app's own CPU per request: what it spends above the bare ASGI floor.
            for app, arm in (("litestar", ours), ("fastapi", theirs)):
                ratio[api][f"{app}_above_floor_us"] = median(
                    [
                        r[arm]["server_cpu_us_per_request"] - r[floor]["server_cpu_us_per_request"]
                        for r in with_floor
                    ]
                )
    return {"medians": medians, "ratios": ratio}


def format_summary(summary: dict) -> str:
    lines = [
        (
            f"{'arm':<24} {'req/s':>9} {'server cpu us/req':>18} {'capacity req/s':>15} "
            f"{'p50 ms':>8} {'p99 ms':>8} {'cpu us/token':>13}"
        )
    ]
    for arm, m in summary["medians"].items():
        cpu = m["server_cpu_us_per_request"]
        per_token = m.get("server_cpu_us_per_token")
        lines.append(
            f"{arm:<24} {m['requests_per_s']:>9,.0f} {cpu:>18,.0f} "
            f"{1e6 / cpu if cpu else 0:>15,.0f} {m['latency_p50_ms']:>8.2f} "
            f"{m['latency_p99_ms']:>8.2f} "
            f"{'' if per_token is None else f'{per_token:,.1f}':>13}"
        )
    for api, r in summary["ratios"].items():
        parts = []
        if "requests_per_s" in r:
            parts.append(
                f"Litestar/FastAPI requests/s {r['requests_per_s']:.2f}x; FastAPI "
                f"uses {r['cpu_per_request']:.2f}x the server CPU per request"
            )
        if "litestar_above_floor_us" in r:
            parts.append(
                f"above the bare ASGI floor: Litestar "
                f"{r['litestar_above_floor_us']:,.0f} us, FastAPI "
                f"{r['fastapi_above_floor_us']:,.0f} us per request"
            )
        if "cpu_vs_baseline" in r:
            parts.append(
                f"Litestar uses {r['cpu_vs_baseline']:.2f}x the baseline's server CPU per request"
            )
        parts.extend(
            f"{key.split('_cpu_vs_')[0]} uses {value:.2f}x its {key.split('_cpu_vs_')[1]}'s CPU"
            for key, value in r.items()
            if "_cpu_vs_" in key
        )
        parts.extend(
            f"{traced} adds {r[f'{traced}_extra_us']:,.0f} us CPU per request"
            for traced in TRACED_APPS
            if f"{traced}_extra_us" in r
        )
        lines.append(f"{api}: " + "; ".join(parts))
    lines.append("medians over rounds; ratios are medians of per-round ratios")
    return "\n".join(lines)

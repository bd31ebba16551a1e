"""Rank fusion of retrieval channels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kenning.core.query import ChannelHit


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[tuple[str, float]]],
    *,
    k: float = 60.0,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[str, float, list[ChannelHit]]]:
    """Weighted reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009): Σ w_c / (k + rank_c).

    `rankings` maps a channel name to (id, channel score) pairs, best first. Ties are broken by id
    so the output never depends on the order channels or hits were supplied in.
    """
    fused: dict[str, float] = {}
    explain: dict[str, list[ChannelHit]] = {}
    for channel in sorted(rankings):
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        for rank, (item, score) in enumerate(rankings[channel], start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
            explain.setdefault(item, []).append(ChannelHit(channel=channel, rank=rank, score=score))
    ordered = sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))
    return [(item, score, explain[item]) for item, score in ordered]

"""``transports.webrtc.signalling``: what browsers send is taken, anything else is refused with a reason."""

from __future__ import annotations

import json

import pytest

from transports.webrtc.signalling import BadRequest, candidate_problem, parse_offer, parse_patch

#: candidates as Chrome, Firefox and Safari trickle them (host, mDNS, srflx, relay, TCP, IPv6)
BROWSER_CANDIDATES = [
    "candidate:842163049 1 udp 1677729535 203.0.113.7 46154 typ srflx raddr 0.0.0.0 rport 0 generation 0 "
    "ufrag sXhW network-cost 999",
    "candidate:3442447574 1 udp 2122260223 1f2b7c1e-54a4-4a7e-9c4f-2f0c3c2b1a00.local 54321 typ host "
    "generation 0 ufrag sXhW network-id 1",
    "candidate:0 1 UDP 2122252543 192.168.1.2 49731 typ host",
    "candidate:1 1 TCP 2105524479 192.168.1.2 9 typ host tcptype active",
    "candidate:5 1 UDP 8265471 198.51.100.4 61234 typ relay raddr 203.0.113.7 rport 46154",
    "candidate:2 1 udp 2122129151 2001:db8::1 50000 typ host generation 0",
    "1 1 udp 2122260223 10.0.0.2 50000 typ host",  # without the attribute name, as aiortc writes it
]


@pytest.mark.parametrize("candidate", BROWSER_CANDIDATES)
def test_candidates_browsers_send_are_taken(candidate: str) -> None:
    assert candidate_problem(candidate) is None


@pytest.mark.parametrize(
    ("candidate", "problem"),
    [
        ("garbage", "a candidate is"),
        ("candidate:1", "a candidate is"),
        ("candidate:1 1 udp 1 10.0.0.2 9 typ", "a candidate is"),
        ("candidate:1 x udp 1 10.0.0.2 9 typ host", "component"),
        ("candidate:1 1 udp -5 10.0.0.2 9 typ host", "priority"),
        ("candidate:1 1 udp 1 10.0.0.2 70000 typ host", "port"),
        ("candidate:1 1 udp 1 10.0.0.2 9 type host", "candidate type"),
        ("candidate:1 1 udp 1 10.0.0.2 9 typ magic", "candidate type"),
        ("candidate:1 1 udp 1 <script> 9 typ host", "address"),
        ("candidate:1 1 udp 1 10.0.0.2 9 typ host rport x", "rport"),
        ("candidate:1 1 udp 1 10.0.0.2 9 typ host raddr", "a candidate is"),
        ("candidate:1 1 udp 1 10.0.0.2 9 typ host " + "x" * 2000, "longer than"),
    ],
)
def test_malformed_candidates_are_refused_with_what_is_wrong(candidate: str, problem: str) -> None:
    found = candidate_problem(candidate)
    assert found is not None and problem in found


def patch(**fields: object) -> bytes:
    return json.dumps({"pc_id": "pc-1", **fields}).encode()


def test_a_patch_keeps_each_candidate_and_takes_the_empty_one_as_the_end() -> None:
    items = [{"candidate": c, "sdp_mid": "0", "sdp_mline_index": 0} for c in BROWSER_CANDIDATES[:2]]
    items.append({"candidate": "", "sdp_mid": None, "sdp_mline_index": 0})
    parsed = parse_patch(patch(candidates=items))
    assert parsed.pc_id == "pc-1"
    assert [c.candidate for c in parsed.candidates] == [*BROWSER_CANDIDATES[:2], ""]
    assert [c.sdp_mid for c in parsed.candidates] == ["0", "0", ""]


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 5000,
        b'"a string"',
        patch(candidates=[{"candidate": "", "sdp_mid": "0"}]),
        patch(candidates=[{"candidate": "", "sdp_mid": "0", "sdp_mline_index": -1}]),
        patch(candidates=[{"candidate": "", "sdp_mid": "0", "sdp_mline_index": 1.5}]),
        patch(candidates=[{"candidate": 7, "sdp_mid": "0", "sdp_mline_index": 0}]),
        patch(candidates=[{"candidate": "", "sdp_mid": "0", "sdp_mline_index": 0}] * 65),
        patch(candidates=["candidate:1 1 udp 1 10.0.0.2 9 typ host"]),
        json.dumps({"pc_id": {}, "candidates": []}).encode(),
    ],
)
def test_malformed_patches_are_refused(body: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_patch(body)


def test_an_offer_is_read_with_its_types_checked() -> None:
    sdp = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:u\r\na=ice-pwd:p\r\n"
    sdp += "a=fingerprint:sha-256 AB\r\n"
    offer = parse_offer(
        json.dumps({"sdp": sdp, "type": "offer", "pc_id": "pc-1", "restart_pc": True}).encode()
    )
    assert (offer.sdp, offer.type, offer.pc_id, offer.restart_pc) == (sdp, "offer", "pc-1", True)
    for bad in (
        {"sdp": sdp, "type": "offer", "pc_id": 5},
        {"sdp": sdp, "type": "offer", "pc_id": ""},
        {"sdp": sdp},
    ):
        with pytest.raises(BadRequest):
            parse_offer(json.dumps(bad).encode())

"""The bodies of ``POST /api/offer`` and ``PATCH /api/offer``, checked before anything acts on them.

    offer = parse_offer(body)      # SmallWebRTCRequest, or raises BadRequest with the reason
    patch = parse_patch(body)      # SmallWebRTCPatchRequest, every candidate's syntax checked

An offer is a JSON object with string ``sdp`` and ``type`` (``"offer"``), an optional string
``pc_id`` (to renegotiate a call in progress) and an optional boolean ``restart_pc``; its SDP
must be able to connect at all (an audio section, ICE credentials, a DTLS fingerprint). A patch
is ``{"pc_id", "candidates": [{"candidate", "sdp_mid", "sdp_mline_index"}]}`` where each
candidate is empty (end of candidates) or an ICE candidate attribute as RFC 8839 writes it
(``[candidate:]foundation component transport priority address port typ type [...]``), so a
malformed one is refused here with its reason rather than failing inside the WebRTC library.

Pure functions: no I/O, no logging; a ``BadRequest``'s message is safe to send to the client.
"""

from __future__ import annotations

import re
from typing import Any

from pipecat.transports.smallwebrtc.request_handler import (
    IceCandidate,
    SmallWebRTCPatchRequest,
    SmallWebRTCRequest,
)

from tts_service import jsonlimits

#: the most candidates one patch may carry (a browser trickles a handful at a time)
MAX_CANDIDATES = 64
#: what an offer must carry to ever connect (ICE credentials and the DTLS fingerprint)
_SDP_NEEDS = ("a=ice-ufrag:", "a=ice-pwd:", "a=fingerprint:")
_CANDIDATE_TYPES = frozenset({"host", "srflx", "prflx", "relay"})
_FOUNDATION = re.compile(r"[A-Za-z0-9+/]{1,32}")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`{|}~A-Za-z0-9]{1,32}")
_ADDRESS = re.compile(r"[A-Za-z0-9.:\-]{1,253}")
_MAX_CANDIDATE_CHARS = 1024


class BadRequest(ValueError):
    """A request body that cannot be acted on; the message says why (and is safe to show)."""


def parse_offer(body: bytes) -> SmallWebRTCRequest:
    """The offer in a ``POST /api/offer`` body; raises ``BadRequest``."""
    data = _json_object(body, "an offer is JSON with sdp and type")
    sdp, kind = data.get("sdp"), data.get("type")
    if not isinstance(sdp, str) or not isinstance(kind, str):
        raise BadRequest("an offer is JSON with sdp and type (strings)")
    if kind != "offer":
        raise BadRequest(f"expected an offer, got {kind[:20]!r}")
    pc_id = data.get("pc_id")
    if pc_id is not None and not (isinstance(pc_id, str) and 0 < len(pc_id) <= 128):
        raise BadRequest("pc_id, when given, is the string an earlier answer carried")
    restart = data.get("restart_pc", False)
    if not isinstance(restart, bool):
        raise BadRequest("restart_pc, when given, is true or false")
    problem = unconnectable(sdp)
    if problem is not None:
        raise BadRequest(problem)
    return SmallWebRTCRequest(sdp=sdp, type=kind, pc_id=pc_id, restart_pc=restart)


def parse_patch(body: bytes) -> SmallWebRTCPatchRequest:
    """The trickled candidates in a ``PATCH /api/offer`` body; raises ``BadRequest``."""
    data = _json_object(body, "bad candidates: a patch is JSON with pc_id and candidates")
    pc_id, candidates = data.get("pc_id"), data.get("candidates")
    if not isinstance(pc_id, str) or not 0 < len(pc_id) <= 128:
        raise BadRequest("bad candidates: pc_id is the string the answer carried")
    if not isinstance(candidates, list) or len(candidates) > MAX_CANDIDATES:
        raise BadRequest(f"bad candidates: 'candidates' is a list of at most {MAX_CANDIDATES}")
    return SmallWebRTCPatchRequest(pc_id=pc_id, candidates=[_candidate(c) for c in candidates])


def unconnectable(sdp: str) -> str | None:
    """Why an offer can never become a call (no audio, no ICE credentials...), or None."""
    text = sdp.replace("\r\n", "\n")
    if "\nm=audio " not in text:
        return "the offer has no audio section: a call needs the microphone"
    missing = [line.rstrip(":") for line in _SDP_NEEDS if line not in text]
    if missing:
        return f"the offer cannot connect: it has no {', '.join(missing)}"
    return None


def candidate_problem(text: str) -> str | None:
    """What is wrong with one ICE candidate attribute (RFC 8839, section 5.1), or None."""
    if len(text) > _MAX_CANDIDATE_CHARS:
        return f"longer than {_MAX_CANDIDATE_CHARS} characters"
    bits = text.removeprefix("candidate:").split()
    if len(bits) < 8 or len(bits) % 2:
        return "a candidate is: foundation component transport priority address port typ type [name value]..."
    foundation, component, transport, priority, address, port, typ, kind = bits[:8]
    checks = (
        (_FOUNDATION.fullmatch(foundation), "the foundation"),
        (_number(component, 1, 256), "the component id"),
        (_TOKEN.fullmatch(transport), "the transport"),
        (_number(priority, 0, 2**32 - 1), "the priority"),
        (_ADDRESS.fullmatch(address), "the address"),
        (_number(port, 0, 65535), "the port"),
        (typ == "typ" and kind in _CANDIDATE_TYPES, "the candidate type"),
    )
    for ok, what in checks:
        if not ok:
            return f"{what} is not valid"
    extensions = bits[8:]
    for name, value in zip(extensions[::2], extensions[1::2], strict=True):
        if not _TOKEN.fullmatch(name) or not value or len(value) > 256:
            return "an extension is not a name and a value"
        if name == "rport" and not _number(value, 0, 65535):
            return "rport is not a port"
        if name == "raddr" and not _ADDRESS.fullmatch(value):
            return "raddr is not an address"
    return None


def _candidate(item: object) -> IceCandidate:
    if not isinstance(item, dict):
        raise BadRequest("bad candidates: each is an object with candidate, sdp_mid, sdp_mline_index")
    text, mid, index = item.get("candidate"), item.get("sdp_mid"), item.get("sdp_mline_index")
    if mid is None:  # a null sdpMid: the m-line index alone names the media section
        mid = ""
    if not isinstance(text, str) or not isinstance(mid, str) or len(mid) > 32:
        raise BadRequest("bad candidates: candidate and sdp_mid are strings")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 1024:
        raise BadRequest("bad candidates: sdp_mline_index is a small non-negative integer")
    problem = candidate_problem(text) if text else None
    if problem is not None:
        raise BadRequest(f"bad candidate: {problem}")
    return IceCandidate(text, mid, index)


def _json_object(body: bytes, what: str) -> dict[str, Any]:
    try:
        data = jsonlimits.loads(body)
    except (ValueError, RecursionError) as exc:  # nested past the parser's depth: refused too
        raise BadRequest(f"{what} ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise BadRequest(f"{what} (not {type(data).__name__})")
    return data


def _number(text: str, low: int, high: int) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 10 and low <= int(text) <= high


__all__ = [
    "MAX_CANDIDATES",
    "BadRequest",
    "candidate_problem",
    "parse_offer",
    "parse_patch",
    "unconnectable",
]

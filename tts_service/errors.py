"""The one exception tree of Warmline.

Every error that can cross a wire carries a stable ``code`` (a short snake_case string that
clients may switch on); messages are for people and may change.

    WarmlineError                      code
    ├── InvalidInputError              invalid_input
    │   ├── EmptyTextError             empty_text
    │   ├── TextTooLongError           text_too_long
    │   ├── UnsupportedSampleRateError unsupported_sample_rate
    │   ├── UnsupportedFormatError     unsupported_format
    │   ├── InvalidSpeedError          invalid_speed
    │   └── UnknownVoiceError          unknown_voice
    ├── InvalidStateError              invalid_state
    │   ├── SessionClosedError         session_closed
    │   └── BusyError                  busy
    ├── BackendError                   backend_error
    │   ├── ModelNotAvailableError     model_not_available
    │   └── SynthesisError             synthesis_failed
    ├── CapacityError                  capacity
    └── RemoteUnavailableError         remote_unavailable

Raise them chained with ``from`` when they wrap another exception. Messages may cross a wire;
what only the operator should read (a path on the server, say) goes in ``operator_hint``.

The transports extend this one tree (the engine never imports them): ``tts_service.wire.
ProtocolError`` (wire codes such as ``bad_json``, ``unknown_command``), ``transports.twilio.
protocol.TwilioProtocolError`` (``twilio_malformed``, ``twilio_out_of_order``, ``twilio_bad_payload``...),
``transports.security.InsecureBindError`` and ``transports.serve.BindError``.
"""

from __future__ import annotations


class WarmlineError(Exception):
    """Base of every error Warmline raises on purpose.

    ``str(exc)`` may reach a remote client. ``operator_hint`` is advice for whoever runs the
    server (paths, commands to run); the command line prints it, servers log it, and it is never
    sent over a wire.
    """

    code = "warmline_error"

    def __init__(self, *args: object, operator_hint: str = "") -> None:
        super().__init__(*args)
        self.operator_hint = operator_hint


class InvalidInputError(WarmlineError, ValueError):
    """The caller passed a value the engine cannot accept; nothing was changed."""

    code = "invalid_input"


class EmptyTextError(InvalidInputError):
    """Text that holds nothing speakable where something speakable is required."""

    code = "empty_text"


class TextTooLongError(InvalidInputError):
    """More text than the session's bounded text buffer may hold."""

    code = "text_too_long"


class UnsupportedSampleRateError(InvalidInputError):
    """An output sample rate outside the supported set."""

    code = "unsupported_sample_rate"


class UnsupportedFormatError(InvalidInputError):
    """A sample format the engine does not produce."""

    code = "unsupported_format"


class InvalidSpeedError(InvalidInputError):
    """A speaking rate outside the backend's range."""

    code = "invalid_speed"


class UnknownVoiceError(InvalidInputError):
    """A voice the backend does not know, or cannot load on this machine."""

    code = "unknown_voice"


class UnsupportedLanguageError(InvalidInputError):
    """A language no loaded voice speaks."""

    code = "unsupported_language"


class InvalidStateError(WarmlineError, RuntimeError):
    """A verb called in a state that does not allow it (for example ``inject`` after ``flush``)."""

    code = "invalid_state"


class SessionClosedError(InvalidStateError):
    """A verb called on a closed session."""

    code = "session_closed"


class BusyError(InvalidStateError):
    """Too many turns already wait behind the one being spoken."""

    code = "busy"


class BackendError(WarmlineError, RuntimeError):
    """The model failed; the session survives and reports it as an ``error`` event."""

    code = "backend_error"


class ModelNotAvailableError(BackendError):
    """The model or its weights are not installed here; the message says how to get them."""

    code = "model_not_available"


class SynthesisError(BackendError):
    """The model raised while synthesizing one unit of text."""

    code = "synthesis_failed"


class CapacityError(WarmlineError, RuntimeError):
    """The runtime already serves as many sessions as it was told to."""

    code = "capacity"


class RemoteUnavailableError(WarmlineError, ConnectionError):
    """A remote engine (``warmline serve``) could not be reached, or refused the session."""

    code = "remote_unavailable"

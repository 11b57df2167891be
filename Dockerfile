# Warmline: `warmline serve` (the WebSocket server) by default; the voice agent with EXTRAS=agent.
#
#   docker build -t warmline .                          # CPU, the embedded hibari voice
#   docker build --build-arg EXTRAS=agent -t warmline-agent .
#
# GPU backends (pocket, dia2) need torch with CUDA: build FROM a CUDA runtime image with Python 3.11
# instead (e.g. BASE=pytorch/pytorch:<version>-cuda12.x-cudnn9-runtime, which ships torch) and
# pass EXTRAS=pocket. No secrets belong in the image: pass the token at run time (WARMLINE_TOKEN).
#
# The server refuses to start without WARMLINE_TOKEN (it listens on every interface here); set
# WARMLINE_INSECURE=1 to opt out, for a local try or behind something that authenticates.
# `docker stop` sends SIGTERM: the server drains (turns in progress finish, up to --drain-s,
# 30 s) and exits 0; give it the time with `docker run --stop-timeout 40` (Docker waits 10 s).
ARG BASE=python:3.11-slim
FROM ${BASE}

ARG EXTRAS=""
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

RUN useradd --create-home --uid 10001 warmline
WORKDIR /app
COPY pyproject.toml README.md ./
COPY tts_service ./tts_service
COPY transports ./transports
COPY agent ./agent
RUN pip install --upgrade pip && \
    if [ -n "$EXTRAS" ]; then pip install ".[${EXTRAS}]"; else pip install .; fi

USER warmline
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4).status == 200 else 1)"

STOPSIGNAL SIGTERM
CMD ["warmline", "serve", "--host", "0.0.0.0"]

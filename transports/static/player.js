// Warmline's browser player: WebSocket protocol v1 in, an AudioWorklet jitter buffer out.
//
// Plain JS, no build step, nothing from the network but this server. URL parameters: `token`
// (sent as ?token= on the WebSocket), `jitter_ms` (audio buffered before playback starts,
// default 100).

"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const JITTER_MS = Number(params.get("jitter_ms") || 100);
const TOKEN_DELAY_MS = 35; // pace of the token-by-token demo, like a fast LLM

const state = {
  ws: null,
  ready: null, // the server's ready event
  streaming: false, // the connection's mode (config streaming)
  wordTimestamps: false,
  ctx: null,
  node: null,
  analyser: null,
  tSend: null,
  frames: 0,
  underruns: 0,
  drained: 0,
  firstAudioPending: false,
  firstFramePending: false,
  streamTimer: null,
};

function log(line) {
  const el = $("log");
  el.textContent = (el.textContent + line + "\n").split("\n").slice(-40).join("\n");
  el.scrollTop = el.scrollHeight;
}

function setStatus(text) {
  $("status").textContent = text;
}

function setTurn(turn) {
  document.body.dataset.turn = turn;
}

function wsUrl() {
  const url = new URL("/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const token = params.get("token");
  if (token) url.searchParams.set("token", token);
  return url.href;
}

async function ensureAudio() {
  if (state.ctx) {
    if (state.ctx.state !== "running") await state.ctx.resume();
    return;
  }
  const rate = state.ready ? state.ready.sample_rate : 24000;
  const ctx = new AudioContext({ sampleRate: rate, latencyHint: "interactive" });
  await ctx.audioWorklet.addModule("/static/player-worklet.js");
  const node = new AudioWorkletNode(ctx, "warmline-player", {
    numberOfInputs: 0,
    outputChannelCount: [1],
    processorOptions: { jitterMs: JITTER_MS },
  });
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 2048;
  node.connect(analyser);
  analyser.connect(ctx.destination);
  node.port.onmessage = (e) => onWorklet(e.data);
  Object.assign(state, { ctx, node, analyser });
  if (ctx.state !== "running") await ctx.resume();
  requestAnimationFrame(drawWave);
}

function onWorklet(msg) {
  if (msg.type === "started") {
    document.body.dataset.playing = "true";
    if (state.firstAudioPending && state.tSend !== null) {
      state.firstAudioPending = false;
      $("first-audio-ms").textContent = (performance.now() - state.tSend).toFixed(0);
    }
  } else if (msg.type === "drained") {
    document.body.dataset.playing = "false";
    state.drained += 1;
    document.body.dataset.drained = String(state.drained); // turns played out to the end
  } else if (msg.type === "underrun") {
    state.underruns += 1;
    $("underruns").textContent = String(state.underruns);
    log("underrun");
  } else if (msg.type === "buffer") {
    $("buffered-ms").textContent = msg.ms.toFixed(0);
  }
}

function send(obj) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(obj));
}

function onAudio(data) {
  const view = new DataView(data);
  const n = view.getUint32(0, true);
  const ms = view.getFloat32(4, true);
  const samples = new Float32Array(n);
  if (data.byteLength - 8 === n) {
    for (let i = 0; i < n; i++) samples[i] = MULAW[view.getUint8(8 + i)] / 32768;
  } else {
    const pcm = new Int16Array(data, 8, n);
    for (let i = 0; i < n; i++) samples[i] = pcm[i] / 32768;
  }
  if (state.node) state.node.port.postMessage({ type: "audio", samples }, [samples.buffer]);
  state.frames += 1;
  $("frames").textContent = String(state.frames);
  if (state.firstFramePending && state.tSend !== null) {
    state.firstFramePending = false;
    $("first-frame-ms").textContent = (performance.now() - state.tSend).toFixed(0);
    log(`first frame: server says ${ms.toFixed(0)} ms after the command`);
  }
}

function onEvent(ev) {
  switch (ev.event) {
    case "ready":
      state.ready = ev;
      document.body.dataset.connected = "true";
      setStatus("ready");
      for (const id of ["speak", "stream", "pause", "resume", "reset"]) $(id).disabled = false;
      log(`ready: ${ev.sample_rate} Hz ${ev.encoding}, voice ${ev.voice}, protocol ${ev.protocol}`);
      break;
    case "configured":
      state.streaming = ev.streaming;
      state.wordTimestamps = ev.word_timestamps;
      break;
    case "done":
      if (state.node) state.node.port.postMessage({ type: "end" });
      setTurn("done");
      setStatus("done");
      break;
    case "paused":
      setTurn("paused");
      setStatus("paused");
      log(`paused after "${ev.spoken}" (${ev.samples} samples)`);
      break;
    case "resumed":
      setTurn("speaking");
      setStatus("speaking");
      break;
    case "reset":
      setTurn("idle");
      setStatus("reset");
      break;
    case "word":
      $("words").textContent += ev.word + " ";
      break;
    case "error":
      setStatus(`error: ${ev.code}`);
      log(`error ${ev.code}: ${ev.message}`);
      break;
    default:
      log(`event ${ev.event}`);
  }
}

function connect() {
  const ws = new WebSocket(wsUrl());
  ws.binaryType = "arraybuffer";
  ws.onmessage = (e) => (typeof e.data === "string" ? onEvent(JSON.parse(e.data)) : onAudio(e.data));
  ws.onclose = (e) => {
    document.body.dataset.connected = "false";
    setStatus(`closed (${e.code}${e.reason ? ": " + e.reason : ""})`);
    for (const id of ["speak", "stream", "pause", "resume", "reset"]) $(id).disabled = true;
  };
  state.ws = ws;
}

function configureFor(streaming) {
  const wantWords = $("words-on").checked;
  if (state.streaming !== streaming || state.wordTimestamps !== wantWords) {
    send({ cmd: "config", streaming, word_timestamps: wantWords });
    state.streaming = streaming;
    state.wordTimestamps = wantWords;
  }
}

function beginTurn() {
  clearInterval(state.streamTimer);
  state.tSend = performance.now();
  state.firstAudioPending = true;
  state.firstFramePending = true;
  $("first-audio-ms").textContent = "–";
  $("first-frame-ms").textContent = "–";
  $("words").textContent = "";
  setTurn("speaking");
  setStatus("speaking");
}

async function speak() {
  await ensureAudio();
  configureFor(false);
  beginTurn();
  send({ cmd: "start", text: $("text").value });
}

async function streamTokens() {
  await ensureAudio();
  configureFor(true);
  const tokens = $("text").value.match(/\s*\S{1,5}/g) || [];
  beginTurn();
  send({ cmd: "start", text: "" });
  let i = 0;
  state.streamTimer = setInterval(() => {
    if (i < tokens.length) {
      send({ cmd: "inject", text: tokens[i++] });
    } else {
      clearInterval(state.streamTimer);
      send({ cmd: "flush" });
    }
  }, TOKEN_DELAY_MS);
}

function stopLocal() {
  clearInterval(state.streamTimer);
  if (state.node) state.node.port.postMessage({ type: "stop" });
}

function drawWave() {
  const canvas = $("wave");
  const g = canvas.getContext("2d");
  const data = new Float32Array(state.analyser.fftSize);
  state.analyser.getFloatTimeDomainData(data);
  g.fillStyle = "#101522";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.strokeStyle = "#6fa0ff";
  g.lineWidth = 1.5;
  g.beginPath();
  const mid = canvas.height / 2;
  for (let x = 0; x < canvas.width; x++) {
    const y = mid - data[Math.floor((x * data.length) / canvas.width)] * mid * 0.95;
    if (x === 0) g.moveTo(x, y);
    else g.lineTo(x, y);
  }
  g.stroke();
  requestAnimationFrame(drawWave);
}

// G.711 mu-law decoding table (for a connection configured with encoding "mulaw").
const MULAW = (() => {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code++) {
    const u = ~code & 0xff;
    const magnitude = (((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07);
    table[code] = u & 0x80 ? 0x84 - magnitude : magnitude - 0x84;
  }
  return table;
})();

$("speak").addEventListener("click", speak);
$("stream").addEventListener("click", streamTokens);
$("pause").addEventListener("click", () => {
  // The server sends nothing more; what is buffered (a few frames) plays out and fades as it runs
  // dry, so the listener hears exactly what `paused.spoken` reports and resume is seamless.
  clearInterval(state.streamTimer);
  if (state.node) state.node.port.postMessage({ type: "end" });
  send({ cmd: "pause" });
});
$("resume").addEventListener("click", () => send({ cmd: "resume" }));
$("reset").addEventListener("click", () => {
  stopLocal();
  send({ cmd: "reset" });
});
connect();

// The Warmline call page: microphone up, the bot's answer down, over one RTCPeerConnection.
//
// Signalling is one POST of the complete offer (ICE candidates gathered first) to /api/offer,
// answered with the bot's SDP. A data channel carries keep-alive pings, which Pipecat's
// SmallWebRTC transport reads as "the page is still here". The answer plays in an <audio>
// element. With ?record=1 the page also records the answer as PCM (an AudioWorklet on the
// remote track) for tests and diagnostics: window.warmline.takeRecording() returns
// {sampleRate, samples: base64 of int16 little-endian}, and window.warmline.quietS() how many
// seconds the recording has been quiet since it last held sound (null before any sound), so that
// a test knows when the answer's tail has come through the network and the jitter buffer.
//
// ?autostart=1 calls at once (the fake-device test browser grants the microphone by itself).
// No libraries, no CDN.

"use strict";

const params = new URLSearchParams(location.search);
const RECORD = params.get("record") === "1";
const ICE_GATHER_TIMEOUT_MS = 3000;
const PING_INTERVAL_MS = 1000;

const $ = (id) => document.getElementById(id);
const call = {
  pc: null,
  mic: null,
  pingTimer: null,
  ctx: null,
  recorder: null,
  chunks: [],
  recordedSamples: 0,
  receivedSamples: 0,
  lastSoundAt: null, // recordedSamples at the end of the last chunk that held sound
};

// A recorded chunk holds sound when its peak is above -40 dBFS.
const SOUND_PEAK = 0.01;

function log(line) {
  const el = $("log");
  el.textContent += `${new Date().toISOString().slice(11, 23)} ${line}\n`;
  el.scrollTop = el.scrollHeight;
}

function setState(state) {
  document.body.dataset.state = state;
  $("state").textContent = state;
  $("call").disabled = !["idle", "closed", "failed"].includes(state);
  $("hangup").disabled = !$("call").disabled;
}

function waitForIce(pc) {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      pc.removeEventListener("icegatheringstatechange", check);
      resolve();
    };
    const check = () => pc.iceGatheringState === "complete" && done();
    pc.addEventListener("icegatheringstatechange", check);
    setTimeout(done, ICE_GATHER_TIMEOUT_MS);
  });
}

async function startRecorder(stream) {
  call.ctx = new AudioContext({ sampleRate: 48000 });
  await call.ctx.audioWorklet.addModule("/static/call-recorder.js");
  const source = call.ctx.createMediaStreamSource(stream);
  call.recorder = new AudioWorkletNode(call.ctx, "warmline-recorder", { numberOfOutputs: 0 });
  call.recorder.port.onmessage = (e) => {
    call.chunks.push(e.data);
    call.recordedSamples += e.data.length;
    if (e.data.some((v) => Math.abs(v) > SOUND_PEAK)) call.lastSoundAt = call.recordedSamples;
  };
  source.connect(call.recorder);
  await call.ctx.resume();
  document.body.dataset.recording = "true";
}

function onTrack(event) {
  const stream = event.streams[0] || new MediaStream([event.track]);
  $("remote").srcObject = stream; // Chrome feeds a remote track to WebAudio only while it plays
  $("remote").play().catch((err) => log(`autoplay refused: ${err}`));
  log(`bot audio track: ${event.track.kind}`);
  if (RECORD) startRecorder(stream).catch((err) => log(`recorder failed: ${err}`));
}

async function startCall() {
  setState("connecting");
  try {
    call.mic = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    const pc = new RTCPeerConnection({ iceServers: [] });
    call.pc = pc;
    const channel = pc.createDataChannel("warmline", { ordered: true });
    channel.onopen = () => {
      call.pingTimer = setInterval(() => {
        if (channel.readyState === "open") channel.send(`ping: ${Date.now()}`);
      }, PING_INTERVAL_MS);
    };
    pc.addTransceiver(call.mic.getAudioTracks()[0], { direction: "sendrecv" });
    pc.ontrack = onTrack;
    pc.onconnectionstatechange = () => {
      setState(pc.connectionState);
      log(`connection ${pc.connectionState}`);
    };
    pc.oniceconnectionstatechange = () => ($("ice").textContent = pc.iceConnectionState);
    await pc.setLocalDescription(await pc.createOffer());
    await waitForIce(pc);
    const response = await fetch("/api/offer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ sdp: pc.localDescription.sdp, type: pc.localDescription.type }),
    });
    if (!response.ok) throw new Error(`offer refused: ${response.status} ${await response.text()}`);
    const answer = await response.json();
    await pc.setRemoteDescription({ sdp: answer.sdp, type: answer.type });
    log(`answered (peer ${answer.pc_id})`);
  } catch (err) {
    log(`call failed: ${err}`);
    hangUp("failed");
  }
}

function hangUp(state = "closed") {
  clearInterval(call.pingTimer);
  call.pingTimer = null;
  if (call.pc) call.pc.close();
  call.pc = null;
  if (call.mic) call.mic.getTracks().forEach((t) => t.stop());
  call.mic = null;
  setState(state);
}

function takeRecording() {
  const samples = new Int16Array(call.recordedSamples);
  let at = 0;
  for (const chunk of call.chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const s = Math.max(-1, Math.min(1, chunk[i]));
      samples[at++] = Math.round(s * 32767);
    }
  }
  call.chunks = [];
  call.recordedSamples = 0;
  call.lastSoundAt = null;
  const bytes = new Uint8Array(samples.buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return { sampleRate: call.ctx ? call.ctx.sampleRate : 48000, samples: btoa(binary) };
}

function quietS() {
  if (call.lastSoundAt === null) return null;
  return (call.recordedSamples - call.lastSoundAt) / (call.ctx ? call.ctx.sampleRate : 48000);
}

setInterval(() => {
  $("received-s").textContent = (call.recordedSamples / 48000).toFixed(1);
}, 250);

$("call").onclick = startCall;
window.addEventListener("pagehide", () => hangUp()); // a closing tab says goodbye (DTLS close)
$("hangup").onclick = () => hangUp();
window.warmline = { startCall, hangUp, takeRecording, quietS, state: () => document.body.dataset.state };
setState("idle");
if (params.get("autostart") === "1") startCall();

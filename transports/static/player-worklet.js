// Warmline's jitter-buffer player, running on the audio thread.
//
// The page posts decoded Float32 frames ({type: "audio"}); this processor plays them back to back,
// sample-exact, so consecutive frames are gapless (no per-chunk scheduling, no onended). It starts
// (and restarts after running dry) once `jitterMs` of audio is buffered, or at once when the turn
// has ended. Running dry mid-turn is an underrun: the last samples are faded out so it never
// clicks, and playback fades back in when enough audio is buffered again. {type: "end"} marks the
// end of a turn (draining is then expected, not an underrun); {type: "stop"} fades out now and
// drops the buffer (barge-in).
//
// Messages to the page: "started" (first sample of a (re)start), "underrun", "drained", and a
// "buffer" figure a few times a second.

const FADE_S = 0.008;

class WarmlinePlayer extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const opts = (options && options.processorOptions) || {};
    this.startSamples = Math.max(1, Math.round(((opts.jitterMs ?? 100) * sampleRate) / 1000));
    this.fadeLen = Math.max(1, Math.round(FADE_S * sampleRate));
    this.chunks = [];
    this.head = 0; // read position in chunks[0]
    this.buffered = 0;
    this.playing = false;
    this.ended = true; // nothing expected until audio arrives
    this.fadeIn = 0; // samples of fade-in left
    this.stopping = 0; // samples of stop fade left
    this.quanta = 0;
    this.port.onmessage = (e) => this.onMessage(e.data);
  }

  onMessage(msg) {
    if (msg.type === "audio") {
      this.chunks.push(msg.samples);
      this.buffered += msg.samples.length;
      this.ended = false;
    } else if (msg.type === "end") {
      this.ended = true;
    } else if (msg.type === "stop") {
      this.ended = true;
      this.stopping = this.playing ? this.fadeLen : 0;
      if (!this.playing) this.clear();
    }
  }

  clear() {
    this.chunks = [];
    this.head = 0;
    this.buffered = 0;
  }

  take() {
    const chunk = this.chunks[0];
    const s = chunk[this.head++];
    this.buffered--;
    if (this.head >= chunk.length) {
      this.chunks.shift();
      this.head = 0;
    }
    return s;
  }

  process(inputs, outputs) {
    const out = outputs[0][0];
    const n = out.length;
    if (++this.quanta % 32 === 0) {
      this.port.postMessage({ type: "buffer", ms: (this.buffered * 1000) / sampleRate });
    }
    if (!this.playing) {
      if (this.buffered > 0 && (this.buffered >= this.startSamples || this.ended)) {
        this.playing = true;
        this.port.postMessage({ type: "started" });
      } else {
        out.fill(0);
        return true;
      }
    }
    if (this.stopping > 0) {
      let i = 0;
      for (; i < n && this.stopping > 0 && this.buffered > 0; i++, this.stopping--) {
        out[i] = this.take() * (this.stopping / this.fadeLen);
      }
      out.fill(0, i);
      if (this.stopping <= 0 || this.buffered === 0) {
        this.stopping = 0;
        this.clear();
        this.playing = false;
        this.port.postMessage({ type: "drained" });
      }
      return true;
    }
    const avail = Math.min(n, this.buffered);
    const fadeOutFrom = avail < n ? Math.max(0, avail - this.fadeLen) : avail;
    for (let i = 0; i < avail; i++) {
      let g = 1;
      if (this.fadeIn > 0) {
        g = 1 - this.fadeIn / this.fadeLen;
        this.fadeIn--;
      }
      if (i >= fadeOutFrom) g *= (avail - i) / (avail - fadeOutFrom + 1);
      out[i] = this.take() * g;
    }
    if (avail < n) {
      out.fill(0, avail);
      this.playing = false;
      if (this.ended) {
        this.port.postMessage({ type: "drained" });
      } else {
        this.fadeIn = this.fadeLen; // fade back in when audio resumes mid-turn
        this.port.postMessage({ type: "underrun" });
      }
    }
    return true;
  }
}

registerProcessor("warmline-player", WarmlinePlayer);

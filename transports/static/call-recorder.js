// Records the bot's audio on the audio thread, for the call page's optional capture (?record=1).
//
// Every render quantum of the first input channel is copied and posted to the page as a
// Float32Array; the page keeps the chunks. The processor passes nothing to its output.

class WarmlineRecorder extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel && channel.length) {
      this.port.postMessage(channel.slice(0));
    }
    return true;
  }
}

registerProcessor("warmline-recorder", WarmlineRecorder);

"""Phone calls through Twilio Media Streams: the codec, the endpoints, marks, a Pipecat transport."""

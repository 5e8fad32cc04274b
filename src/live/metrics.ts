/**
 * What live sessions tell `/metrics`: sessions open now, audio seconds received, and how long partial text takes (from
 * the arrival of the audio that first gave a hypothesis's words to the delta that sends them). Sessions report to the
 * observers registered here, in the same process, as transcriptions report their timings (src/transcription/timings.ts);
 * the service's metrics register one when METRICS is on (src/service-metrics.ts).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export type LiveObserver = {
  opened(): void;
  closed(): void;
  audioReceived(seconds: number): void;
  partialLatency(seconds: number): void;
};

export const liveObservers = new Set<LiveObserver>();

/** Tells every registered observer. */
export const liveEvents: LiveObserver = {
  opened: () => {
    for (const observer of liveObservers) observer.opened();
  },
  closed: () => {
    for (const observer of liveObservers) observer.closed();
  },
  audioReceived: (seconds) => {
    for (const observer of liveObservers) observer.audioReceived(seconds);
  },
  partialLatency: (seconds) => {
    for (const observer of liveObservers) observer.partialLatency(seconds);
  },
};

/** Seconds: the goal is a first partial within 0.5 s of speech, and every one within 1 s. */
const latencyBuckets = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5];

/** The live sessions' metrics on `registry`, and the observer that feeds them. */
export function liveMetrics(registry: Registry): LiveObserver {
  const open = new Gauge({ name: "scribe_live_sessions_open", help: "Live transcription sessions open in this process.", registers: [registry] });
  const audio = new Counter({
    name: "scribe_live_audio_seconds_total",
    help: "Seconds of audio live sessions accepted (after pacing), in this process.",
    registers: [registry],
  });
  const latency = new Histogram({
    name: "scribe_live_partial_latency_seconds",
    help: "Time from the arrival of the audio that gave a hypothesis its words to the delta event that sent them.",
    buckets: latencyBuckets,
    registers: [registry],
  });
  return {
    opened: () => open.inc(),
    closed: () => open.dec(),
    audioReceived: (seconds) => audio.inc(seconds),
    partialLatency: (seconds) => latency.observe(seconds),
  };
}

import { expect, test } from "bun:test";
import type { RecordedEvent as EsdbRecordedEvent } from "@eventstore/db-client";
import { toRecordedOrSkip } from "../../src/eventstore/eventstoredb.ts";
import { foreignEventsSkipped } from "../../src/core/foreign-events.ts";
import { ServiceMetrics } from "../../src/observability/metrics.ts";

/** An event as EventStoreDB's client hands it over from $all. */
function esdbEvent(data: Uint8Array | Record<string, unknown>, isJson: boolean, type = "TaskCreated"): EsdbRecordedEvent {
  return {
    id: crypto.randomUUID(),
    type,
    streamId: isJson ? "task-1" : "other-app-7",
    revision: 0n,
    isJson,
    data,
    metadata: new Uint8Array(),
    position: { commit: 42n, prepare: 42n },
    created: new Date("2026-11-26T12:00:00Z"),
  } as unknown as EsdbRecordedEvent;
}

test("another application's binary or non-JSON event in $all is skipped and counted, not a halt at its position", () => {
  const before = foreignEventsSkipped();
  expect(toRecordedOrSkip(esdbEvent(new Uint8Array([0xff, 0x00, 0x13, 0x37]), false, "SensorReading"))).toBeNull();
  expect(toRecordedOrSkip(esdbEvent(new TextEncoder().encode("<xml/>"), false, "Invoice"))).toBeNull();
  expect(foreignEventsSkipped()).toBe(before + 2);
  // Ours, stored as JSON, and JSON stored as bytes by a tool, are read.
  expect(toRecordedOrSkip(esdbEvent({ name: "a" }, true))).toMatchObject({ type: "TaskCreated", data: { name: "a" }, position: 42 });
  expect(toRecordedOrSkip(esdbEvent(new TextEncoder().encode('{"name":"b"}'), false))).toMatchObject({ data: { name: "b" } });
  expect(foreignEventsSkipped()).toBe(before + 2);
});

test("the skips are a metric", async () => {
  toRecordedOrSkip(esdbEvent(new Uint8Array([0xc3]), false, "Blob"));
  const text = await new ServiceMetrics().registry.metrics();
  expect(text).toContain(`scribe_foreign_events_skipped_total ${foreignEventsSkipped()}`);
});

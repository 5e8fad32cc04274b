import type { RecordedEvent } from "../core/event.ts";

export type EventFilter = { stream: string | null; types: Set<string> | null; since: Date | null; until: Date | null };

export class FilterError extends Error {}

function date(name: string, raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const value = new Date(raw);
  if (Number.isNaN(value.getTime())) throw new FilterError(`--${name}: not a date or time: "${raw}" (use ISO 8601, e.g. 2026-11-23 or 2026-11-23T10:00:00Z)`);
  return value;
}

export function eventFilter(options: Map<string, string[]>): EventFilter {
  const types = options
    .get("type")
    ?.flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    stream: options.get("stream")?.at(-1) ?? null,
    types: types && types.length > 0 ? new Set(types) : null,
    since: date("since", options.get("since")?.at(-1)),
    until: date("until", options.get("until")?.at(-1)),
  };
}

export function matchesFilter(filter: EventFilter, event: RecordedEvent): boolean {
  if (filter.stream !== null && event.streamName !== filter.stream) return false;
  if (filter.types !== null && !filter.types.has(event.type)) return false;
  const time = new Date(event.time);
  if (filter.since !== null && time < filter.since) return false;
  if (filter.until !== null && time >= filter.until) return false;
  return true;
}

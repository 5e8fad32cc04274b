/**
 * Folded states are plain data plus Sets and Maps; a snapshot stores them as JSON, so Sets and Maps
 * travel tagged (`{ $set: [...] }`, `{ $map: [[key, value], ...] }`) and come back as what they were.
 */
export function encodeState(value: unknown): unknown {
  if (value instanceof Set) return { $set: [...value].map(encodeState) };
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encodeState(k), encodeState(v)]) };
  if (Array.isArray(value)) return value.map(encodeState);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, encodeState(v)]),
    );
  }
  return value;
}

export function decodeState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeState);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === "$set" && Array.isArray(record.$set)) return new Set(record.$set.map(decodeState));
    if (keys.length === 1 && keys[0] === "$map" && Array.isArray(record.$map)) {
      return new Map((record.$map as [unknown, unknown][]).map(([k, v]) => [decodeState(k), decodeState(v)]));
    }
    return Object.fromEntries(keys.map((k) => [k, decodeState(record[k])]));
  }
  return value;
}

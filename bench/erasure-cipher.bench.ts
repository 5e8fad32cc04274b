// What encrypting personal fields costs per event (crypto-shredding, src/erasure/field-cipher.ts), on this machine:
//   bun bench/erasure-cipher.bench.ts [events]        (default 20000; 2000 in quick mode)
// A typical TaskCreated's personal fields (name, file name, URL) and a SummaryRefreshed's (a 2 KiB summary and a
// mind map), each encrypted and decrypted as the protected event store does: one AES-256-GCM call per field with a
// CryptoKey already imported. Also what the key costs: the embedded key store's cached lookup, and a cold import.
import { decryptField, encryptField, importDataKey, newRawDataKey } from "../src/erasure/field-cipher.ts";
import { SqliteDataKeyStore } from "../src/erasure/sqlite-data-keys.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const events = numberArgument(0, 20_000, 2000);
const key = await importDataKey(newRawDataKey());

type Fields = Record<string, unknown>;
const taskCreated: Fields = {
  name: "Interview with Dr. Ana Müller, 2026-11-24",
  file: "interview-ana-muller-2026-11-24-final.m4a",
  url: "https://media.example.org/recordings/2026/11/interview-ana-muller.m4a?sig=Z3Vlc3Q",
};
const sentence = "The patient described the symptoms that began after the second visit in early October. ";
const summaryRefreshed: Fields = {
  summary: sentence.repeat(24).slice(0, 2048),
  mindmap: `# Interview\n${Array.from({ length: 20 }, (_, i) => `- point ${i}: ${sentence.slice(0, 40)}`).join("\n")}`,
};

async function encryptEvent(type: string, fields: Fields, scope: string): Promise<Fields> {
  const out: Fields = {};
  for (const [path, value] of Object.entries(fields)) out[path] = await encryptField(value, key, { scope, eventType: type, path });
  return out;
}

async function decryptEvent(type: string, fields: Fields, scope: string): Promise<Fields> {
  const out: Fields = {};
  for (const [path, value] of Object.entries(fields)) out[path] = await decryptField(value as string, key, { scope, eventType: type, path });
  return out;
}

/** µs per event: encrypting `events` of them, then decrypting what was written (warmed up first). */
async function measure(type: string, fields: Fields): Promise<{ encrypt: number; decrypt: number; bytes: [number, number] }> {
  for (let i = 0; i < 500; i++) await decryptEvent(type, await encryptEvent(type, fields, "task-1"), "task-1");
  const written: Fields[] = [];
  let started = performance.now();
  for (let i = 0; i < events; i++) written.push(await encryptEvent(type, fields, `task-${i}`));
  const encrypt = ((performance.now() - started) * 1000) / events;
  started = performance.now();
  for (let i = 0; i < events; i++) await decryptEvent(type, written[i] as Fields, `task-${i}`);
  const decrypt = ((performance.now() - started) * 1000) / events;
  return { encrypt, decrypt, bytes: [Buffer.byteLength(JSON.stringify(fields)), Buffer.byteLength(JSON.stringify(written[0]))] };
}

for (const [type, fields] of [
  ["TaskCreated", taskCreated],
  ["SummaryRefreshed", summaryRefreshed],
] as const) {
  const result = await measure(type, fields);
  console.log(`${type}: ${Object.keys(fields).length} fields, ${result.bytes[0]} B of JSON in the clear, ${result.bytes[1]} B encrypted (${events} events)`);
  figure(`${type} personal fields encrypted`, result.encrypt, "µs/event");
  figure(`${type} personal fields decrypted`, result.decrypt, "µs/event");
}

const store = new SqliteDataKeyStore(":memory:");
try {
  for (let i = 0; i < 1000; i++) await store.keyFor(`task-${i}`, 1);
  let started = performance.now();
  for (let i = 0; i < events; i++) await store.keyFor(`task-${i % 1000}`, 1);
  figure("embedded key store: a cached key", ((performance.now() - started) * 1000) / events, "µs/lookup");
  started = performance.now();
  for (let i = 0; i < 1000; i++) await store.keyFor(`task-new-${i}`, 1);
  figure("embedded key store: a new key made and imported", ((performance.now() - started) * 1000) / 1000, "µs/key");
} finally {
  await store.close();
}

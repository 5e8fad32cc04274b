/** What the tests of the official `openai` client against the started service share: accounts, calls, speech. */
import { expect } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import OpenAI from "openai";
import { runCli, type RunningService } from "../support/service-process.ts";
import { ffmpeg, sharedTestdata, spoken } from "../support/media-fixtures.ts";

export type Account = { email: string; token: string; key: string };

const jfkPath = join(sharedTestdata, "jfk.wav");
if (!existsSync(jfkPath)) console.log(`note: ${jfkPath} is absent (../shared/testdata); the OpenAI client transcribes an espeak-ng clip instead`);

/** JFK's "ask not" (11 s) where ../shared has it, else the same words spoken by espeak-ng. */
export async function speech(): Promise<Uint8Array> {
  if (existsSync(jfkPath)) return readFileSync(jfkPath);
  return readFileSync(await spoken("And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."));
}

export async function json(
  service: RunningService,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** A paying account (the CLI sets its plan, as an operator would) with a login token and an API key. */
export async function payingAccount(service: RunningService, plan = "pro"): Promise<Account> {
  const email = `openai-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const registered = await json(service, null, "POST", "/api/register", { name: "Integration", email, password, password_confirmation: password });
  expect(registered.status).toBe(201);
  expect((await runCli("admin", ["plan", email, plan], { DATA_DIR: service.dataDir })).code).toBe(0);
  const created = await json(service, registered.body.token, "POST", "/api/api-keys", { name: "openai client" });
  expect(created.status).toBe(201);
  return { email, token: registered.body.token, key: created.body.key };
}

export const clientOf = (service: RunningService, apiKey: string) => new OpenAI({ apiKey, baseURL: `${service.url}/v1`, maxRetries: 2 });

export async function tasksOf(service: RunningService, account: Account): Promise<{ id: number; status: string }[]> {
  return (await json(service, account.token, "GET", "/api/tasks")).body.data;
}

/** Its first 3 seconds, for the tests of the formats: each transcription is a recognition, and they run one after another. */
export async function shortSpeech(audio: Uint8Array): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), "scribe-openai-"));
  await Bun.write(join(dir, "in.wav"), audio);
  await ffmpeg("-i", join(dir, "in.wav"), "-t", "3", join(dir, "out.wav"));
  return readFileSync(join(dir, "out.wav"));
}

export const increasing = (times: { start: number; end: number }[]) => times.every((t, i) => t.start <= t.end && (i === 0 || times[i - 1]!.start <= t.start));

import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkAddress, type AddressPolicy } from "./address-policy.ts";

/** A fetch that could not be done or was refused; its message is meant for the task's failure reason. */
export class MediaFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MediaFetchError";
  }
}

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type SafeFetchOptions = AddressPolicy & {
  /** Larger bodies are refused (by Content-Length up front, or while streaming). */
  maxBytes: number;
  /** For the whole fetch: every redirect and the body included. */
  timeoutMs: number;
  maxRedirects?: number;
  /** DNS, injectable for tests; defaults to the system resolver (all addresses). */
  resolve?: Resolver;
};

export type SafeResponse = {
  /** The URL that answered, after redirects. */
  url: URL;
  contentType: string | null;
  contentLength: number | null;
  contentDisposition: string | null;
  /** The body, capped at maxBytes and ended by the deadline; it errors with MediaFetchError. */
  body: ReadableStream<Uint8Array>;
};

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family }));

/** The one reason given for any refused address: which address, range or port it was stays with us. */
export const notPublicReason = "the URL leads into a private network; only public addresses are fetched";

/**
 * Checks a URL before anything connects to it: http(s) only, no credentials, and every address its
 * host resolves to must be public (see address-policy.ts). Returns the vetted addresses; the
 * connection is then made to those, so a DNS answer that changes in between (rebinding) is not used.
 */
export async function vetUrl(
  raw: string | URL,
  options: AddressPolicy & Pick<SafeFetchOptions, "resolve">,
): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MediaFetchError("the URL is not valid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new MediaFetchError(`only http and https URLs can be fetched, not ${url.protocol.replace(":", "")}`);
  if (url.username || url.password) throw new MediaFetchError("URLs with a user name or password are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch {
      throw new MediaFetchError(`the host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw new MediaFetchError(`the host ${host} could not be resolved`);
  }
  for (const { address } of addresses) {
    const verdict = checkAddress(address, options);
    if (!verdict.allowed) throw new MediaFetchError(notPublicReason);
  }
  return { url, addresses };
}

/**
 * GET a public URL safely: the host is resolved and vetted before connecting, the connection goes to
 * the vetted address, redirects are followed by hand (each hop vetted again), and size and time are
 * capped. Resolves once a 2xx response's headers arrive.
 */
export async function safeFetch(raw: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  const controller = new AbortController();
  const seconds = Math.round(options.timeoutMs / 1000);
  const timer = setTimeout(() => controller.abort(new MediaFetchError(`the download took longer than ${seconds} s`)), options.timeoutMs);
  const fail = (error: unknown): never => {
    clearTimeout(timer);
    throw error;
  };
  let current: string | URL = raw;
  for (let hop = 0; ; hop++) {
    const { url, addresses }: { url: URL; addresses: ResolvedAddress[] } = await vetUrl(current, options).catch(fail);
    const response: IncomingMessage = await requestVetted(url, addresses, controller.signal).catch(fail);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= maxRedirects) fail(new MediaFetchError(`more than ${maxRedirects} redirects`));
      try {
        current = new URL(response.headers.location, url);
      } catch {
        fail(new MediaFetchError("a redirect pointed to an invalid URL"));
      }
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      fail(new MediaFetchError(`the server answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`));
    }
    const lengthHeader = response.headers["content-length"];
    const contentLength = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
    if (contentLength !== null && contentLength > options.maxBytes) {
      response.destroy();
      fail(new MediaFetchError(`the file is ${contentLength} bytes, more than the limit of ${options.maxBytes}`));
    }
    return {
      url,
      contentType: response.headers["content-type"] ?? null,
      contentLength,
      contentDisposition: response.headers["content-disposition"] ?? null,
      body: cappedBody(response, options.maxBytes, controller.signal, () => clearTimeout(timer)),
    };
  }
}

/** What a request other than the media GET sends (a webhook's POST). */
export type VettedRequestInit = { method: string; headers: Record<string, string>; body?: string };

const mediaGet: VettedRequestInit = { method: "GET", headers: { "user-agent": "Scribe media fetcher", accept: "*/*" } };

/**
 * Sends one request to addresses vetUrl returned, never to a fresh DNS answer; resolves once the
 * response's headers arrive. Redirects are the caller's to follow (and vet) or refuse.
 */
export function requestVetted(url: URL, addresses: ResolvedAddress[], signal: AbortSignal, init: VettedRequestInit = mediaGet): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const request = client.request(
      {
        protocol: url.protocol,
        host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers: init.body === undefined ? init.headers : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
        agent: false,
        signal,
        // Connect to the addresses vetted above, never to a fresh DNS answer.
        lookup: (_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
          if (opts?.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        ...(isIP(host) ? {} : { servername: host }),
      } as http.RequestOptions,
      resolve,
    );
    const verb = init.method === "GET" ? "download from" : "connect to";
    request.on("error", (error: Error) => reject(signal.aborted ? signal.reason : new MediaFetchError(`could not ${verb} ${host}: ${describe(error)}`)));
    request.end(init.body);
  });
}

function describe(error: Error): string {
  const code = (error as { code?: string }).code;
  return code ? `${code}${error.message && !error.message.includes(code) ? ` (${error.message})` : ""}` : error.message;
}

function cappedBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal, done: () => void): ReadableStream<Uint8Array> {
  const chunks = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await chunks.next();
        if (ended) {
          done();
          controller.close();
          return;
        }
        received += value.byteLength;
        if (received > maxBytes) throw new MediaFetchError(`the file is larger than the limit of ${maxBytes} bytes`);
        controller.enqueue(value);
      } catch (error) {
        done();
        response.destroy();
        controller.error(
          signal.aborted
            ? signal.reason
            : error instanceof MediaFetchError
              ? error
              : new MediaFetchError(`the download broke off: ${describe(error as Error)}`),
        );
      }
    },
    cancel() {
      done();
      response.destroy();
    },
  });
}

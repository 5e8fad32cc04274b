import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MediaFetchError, notPublicReason, vetUrl, type Resolver } from "./safe-fetch.ts";
import type { AddressPolicy } from "./address-policy.ts";
import { startEgressProxy } from "./egress-proxy.ts";
import { extensionOf } from "./formats.ts";
import { typeForExtension } from "./media-type.ts";
import { diesWithParent } from "../core/child-process.ts";

export type VideoLinkOptions = AddressPolicy & {
  maxBytes: number;
  timeoutMs: number;
  /** The yt-dlp executable (Debian package `yt-dlp`). */
  ytDlp: string;
  resolve?: Resolver;
};

export type DownloadedFile = { path: string; size: number; contentType: string; fileName: string; cleanUp(): Promise<void> };

/**
 * Downloads the media of a video page with yt-dlp into a fresh temp directory. The page URL is vetted
 * like any fetch (public addresses only) before yt-dlp sees it, and every request yt-dlp then makes on
 * its own (redirects, the media files on a CDN, an HLS playlist's segments) goes through an egress
 * proxy of ours that vets each hop the same way (egress-proxy.ts). Only http(s) formats are picked,
 * downloaded by yt-dlp itself, so no other program opens connections. yt-dlp runs without config files,
 * without playlists, with a file-size cap, a socket timeout and a deadline for the whole run, in an
 * environment of its own (no credentials inherited; its proxy variables name our proxy only).
 */
export async function downloadVideoLink(pageUrl: string, options: VideoLinkOptions): Promise<DownloadedFile> {
  const { url } = await vetUrl(pageUrl, options);
  const dir = await mkdtemp(join(tmpdir(), "scribe-ytdlp-"));
  const proxy = await startEgressProxy(options);
  const cleanUp = async () => {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const args = [
      options.ytDlp,
      "--ignore-config",
      "--no-playlist",
      "--playlist-items",
      "1",
      "--no-cache-dir",
      "--no-mtime",
      "--no-progress",
      "--no-color",
      "--restrict-filenames",
      "--socket-timeout",
      "30",
      "--retries",
      "2",
      "--max-filesize",
      String(options.maxBytes),
      "--format",
      "bestaudio[protocol^=http]/bestaudio[protocol^=m3u8]/best[protocol^=http]/best[protocol^=m3u8]",
      "--downloader",
      "native",
      "--output",
      join(dir, "media.%(ext)s"),
      "--",
      url.href,
    ];
    const child = Bun.spawn(diesWithParent(args), {
      cwd: dir,
      // Without --proxy, yt-dlp takes its proxies from these, ftp included (--proxy would cover http(s) only).
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        LANG: "C.UTF-8",
        http_proxy: proxy.url,
        https_proxy: proxy.url,
        ftp_proxy: proxy.url,
        no_proxy: "",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]).finally(() =>
      clearTimeout(timer),
    );
    if (timedOut) throw new MediaFetchError(`the download took longer than ${Math.round(options.timeoutMs / 1000)} s`);
    // What yt-dlp says about a refused hop would name it: the one reason says no more than that there was one.
    if (code !== 0 && proxy.refusals > 0) throw new MediaFetchError(notPublicReason);
    if (code !== 0) throw new MediaFetchError(`the video could not be downloaded: ${lastError(stderr) ?? `yt-dlp exited with ${code}`}`);
    const files = (await readdir(dir)).filter((name) => name.startsWith("media.") && !name.endsWith(".part") && !name.endsWith(".ytdl"));
    if (files.length === 0) {
      if (proxy.refusals > 0) throw new MediaFetchError(notPublicReason);
      if (/max-filesize|larger than max/i.test(stdout + stderr)) throw new MediaFetchError(`the video is larger than the limit of ${options.maxBytes} bytes`);
      throw new MediaFetchError(`the page has no video or audio that could be downloaded${lastError(stderr) ? `: ${lastError(stderr)}` : ""}`);
    }
    const path = join(dir, files[0]!);
    const { size } = await stat(path);
    await proxy.close();
    if (size > options.maxBytes) throw new MediaFetchError(`the video is larger than the limit of ${options.maxBytes} bytes`);
    const extension = extensionOf(files[0]!);
    return { path, size, contentType: typeForExtension(extension), fileName: `${pageName(url)}.${extension || "bin"}`, cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

function lastError(stderr: string): string | null {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const error = lines.reverse().find((l) => l.startsWith("ERROR:")) ?? lines[0];
  return error
    ? error
        .replace(/^ERROR:\s*/, "")
        .replace(/;?\s*please report this issue.*$/i, "")
        .slice(0, 300)
    : null;
}

/** A readable base name from the page URL ("watch", "my-talk"), for the task's `file`. */
function pageName(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).pop() ?? url.hostname;
  const stem = last.replace(/\.[A-Za-z0-9]{1,8}$/, "");
  return (stem || url.hostname).slice(0, 100);
}

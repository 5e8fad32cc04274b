import { addresses, flag, integer, text } from "../config/setting.ts";

/** Server-side fetches of remote and video-link media, which the tasks' fetch worker makes (docs/api.md). */
export const mediaFetchSettings = {
  MEDIA_FETCH_MAX_BYTES: integer({
    group: "media fetching",
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 2_147_483_648,
    shownDefault: "2147483648 (2 GiB)",
    description: "The largest file a fetch downloads.",
  }),
  MEDIA_FETCH_TIMEOUT_SECONDS: integer({ group: "media fetching", min: 1, max: 86_400, fallback: 900, description: "How long a whole download may take." }),
  MEDIA_FETCH_ALLOW_LOOPBACK: flag({
    group: "media fetching",
    words: ["true", "false"],
    fallback: false,
    description: "Tests only, never in production: lets fetches reach 127.0.0.0/8 and ::1.",
  }),
  MEDIA_FETCH_FORBIDDEN_ADDRESSES: addresses({
    group: "media fetching",
    description: "Tests only: addresses refused even so, standing for a private hop on loopback.",
  }),
  YT_DLP_PATH: text({ group: "media fetching", kind: "program", fallback: "yt-dlp", description: "yt-dlp's program, for video links." }),
} as const;

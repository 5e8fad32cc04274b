import { ValidationFailedError } from "../core/errors.ts";

export const maxAvatarBytes = 5 * 1024 * 1024;

const signatures: { type: string; extension: string; matches: (b: Uint8Array) => boolean }[] = [
  { type: "image/png", extension: "png", matches: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { type: "image/jpeg", extension: "jpg", matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", extension: "gif", matches: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  {
    type: "image/webp",
    extension: "webp",
    matches: (b) => String.fromCharCode(...b.slice(0, 4)) === "RIFF" && String.fromCharCode(...b.slice(8, 12)) === "WEBP",
  },
];

/**
 * The file's own bytes decide what it is, not the name or type the client claims, so a script
 * renamed to .png is refused. SVG is refused on purpose: it can carry scripts.
 */
export async function checkAvatar(file: File): Promise<{ type: string; extension: string; bytes: Uint8Array }> {
  if (file.size > maxAvatarBytes) throw new ValidationFailedError({ avatar: ["The avatar must not be greater than 5 MB (5120 kilobytes)."] });
  if (file.size === 0) throw new ValidationFailedError({ avatar: ["The avatar must be an image (PNG, JPEG, GIF or WebP)."] });
  const bytes = new Uint8Array(await file.arrayBuffer());
  const kind = signatures.find((s) => s.matches(bytes));
  if (!kind) throw new ValidationFailedError({ avatar: ["The avatar must be an image (PNG, JPEG, GIF or WebP)."] });
  return { type: kind.type, extension: kind.extension, bytes };
}

const palette = ["#2563eb", "#16a34a", "#db2777", "#ea580c", "#7c3aed", "#0891b2"];

/** A placeholder with the user's initials until they upload a picture. */
export function initialsAvatar(name: string, userId: number): string {
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => [...part][0]!.toUpperCase())
    .join("")
    .replace(/[<>&"']/g, "");
  const color = palette[userId % palette.length];
  const circle = `<rect width="128" height="128" rx="64" fill="${color}"/>`;
  const letters = `<text x="64" y="64" dy=".35em" text-anchor="middle" font-family="sans-serif" font-size="52" fill="#fff">${initials || "?"}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">${circle}${letters}</svg>`;
}

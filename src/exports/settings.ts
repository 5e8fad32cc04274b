import { flag, text } from "../config/setting.ts";

/** PDF and docx rendering (docs/api.md). */
export const exportSettings = {
  EXPORT_FONT: text({
    group: "exports",
    kind: "path",
    fallback: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    description: "The PDF's font (TTF, OTF, or a TTC whose first face is used).",
  }),
  EXPORT_FALLBACK_FONT: text({
    group: "exports",
    kind: "path",
    fallback: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    description: "The PDF's font for characters EXPORT_FONT lacks (left out when the file is missing).",
  }),
  EXPORT_RENDER_THREAD: flag({
    group: "exports",
    words: ["1", "0"],
    fallback: true,
    description: "Renders PDF and docx on a thread of their own (0: on the export worker's thread).",
  }),
  EXPORT_AHEAD_OF_TIME: flag({
    group: "exports",
    words: ["1", "0"],
    fallback: true,
    description:
      "Makes the PDF and docx of a finished or changed transcript (up to 20,000 segments) before anyone asks (0: only when first " +
      "downloaded, which answers 202 until they are made; saves the CPU of exports nobody downloads).",
  }),
} as const;

/** The transcript page's pure logic: the segment for a time, edits, find and replace, undo, shortcuts, captions. */
import { describe, expect, test } from "bun:test";
import { captionsOf } from "../../src/web/app/transcript/captions.ts";
import { countMatches, replaceAll } from "../../src/web/app/transcript/find-replace.ts";
import { clock, segmentAt, speakersOf, toPatch, withSpeakerRenamed, withText, type Segment } from "../../src/web/app/transcript/segments.ts";
import { isVideoFile, playerAction, type KeyTarget } from "../../src/web/app/transcript/shortcuts.ts";
import { popUndo, pushUndo, type UndoStep } from "../../src/web/app/transcript/undo-stack.ts";

const seg = (id: number, start: number, end: number, text: string, speaker: string | null = null, tokens: string[] | null = null): Segment => ({
  id,
  start,
  end,
  text,
  speaker,
  tokens,
});
const transcript = [seg(1, 0, 1000, "Hello there", "A"), seg(2, 1000, 2500, "General Kenobi, hello", "B"), seg(5, 4000, 5000, "hello? HELLO", "A")];

describe("the segment being played", () => {
  test("given a time, the segment it falls in; none before, between or after segments", () => {
    expect(segmentAt(transcript, 0)).toBe(0);
    expect(segmentAt(transcript, 999)).toBe(0);
    expect(segmentAt(transcript, 1000)).toBe(1);
    expect(segmentAt(transcript, 3000)).toBe(-1); // the gap
    expect(segmentAt(transcript, 4500)).toBe(2);
    expect(segmentAt(transcript, 5000)).toBe(-1);
    expect(segmentAt([], 10)).toBe(-1);
    expect(segmentAt([seg(1, 500, 500, "instant")], 500)).toBe(0);
  });

  test("times for people", () => {
    expect([clock(0), clock(65_000), clock(3_723_000)]).toEqual(["0:00", "1:05", "1:02:03"]);
  });
});

describe("edits", () => {
  test("given a transcript, when one segment's text changes, then only it changes and loses its tokens", () => {
    const withTokens = [seg(1, 0, 1, "a b", null, ["a", "b"]), seg(2, 1, 2, "c", null, ["c"])];
    const edited = withText(withTokens, 1, "a c");
    expect(edited[0]).toEqual(seg(1, 0, 1, "a c", null, null));
    expect(edited[1]).toBe(withTokens[1]!);
    expect(withText(withTokens, 1, "a b")[0]).toBe(withTokens[0]!);
  });

  test("when a speaker is renamed, every one of their segments carries the new name", () => {
    const renamed = withSpeakerRenamed(transcript, "A", "Ann");
    expect(renamed.map((s) => s.speaker)).toEqual(["Ann", "B", "Ann"]);
    expect(speakersOf(renamed)).toEqual(["Ann", "B"]);
    expect(speakersOf(withSpeakerRenamed(transcript, "A", "B"))).toEqual(["B"]); // renaming onto another speaker merges them
  });

  test("the PATCH body keeps ids and sends tokens that are only the text's words as null", () => {
    expect(toPatch([seg(7, 0, 1, "a  b", "X", ["a", "b"]), seg(9, 1, 2, "c d", null, ["c", "dee"])])).toEqual([
      seg(7, 0, 1, "a  b", "X", null),
      seg(9, 1, 2, "c d", null, ["c", "dee"]),
    ]);
  });
});

describe("find and replace", () => {
  test("counts matches across segments, with or without case", () => {
    expect(countMatches(transcript, "hello", { matchCase: false })).toBe(4);
    expect(countMatches(transcript, "hello", { matchCase: true })).toBe(2);
    expect(countMatches(transcript, "", { matchCase: false })).toBe(0);
    expect(countMatches(transcript, "?", { matchCase: false })).toBe(1); // regex characters are literal
  });

  test("replaces every match literally; untouched segments stay the same objects", () => {
    const replaced = replaceAll(transcript, "hello", "$& bye", { matchCase: false });
    expect(replaced.map((s) => s.text)).toEqual(["$& bye there", "General Kenobi, $& bye", "$& bye? $& bye"]);
    const once = replaceAll(transcript, "Kenobi", "K.", { matchCase: true });
    expect(once[0]).toBe(transcript[0]!);
    expect(once[1]!.text).toBe("General K., hello");
  });
});

describe("undo", () => {
  const step = (label: string): UndoStep => ({ before: [], label });
  test("the last edit is undone first, and only the last 20 are kept", () => {
    let stack: UndoStep[] = [];
    for (let i = 1; i <= 25; i++) stack = pushUndo(stack, step(`edit ${i}`));
    expect(stack).toHaveLength(20);
    expect(stack[0]!.label).toBe("edit 6");
    const popped = popUndo(stack);
    expect(popped?.step.label).toBe("edit 25");
    expect(popped?.rest).toHaveLength(19);
    expect(popUndo([])).toBeNull();
  });
});

describe("keyboard shortcuts", () => {
  const none = { ctrl: false, alt: false, meta: false };
  const on = (tagName: string, type?: string): KeyTarget => ({ tagName, isContentEditable: false, type });
  test("space plays or pauses and arrows move 5 s on the page", () => {
    expect(playerAction(" ", on("BODY"), none)).toEqual({ kind: "toggle" });
    expect(playerAction("ArrowLeft", on("MAIN"), none)).toEqual({ kind: "skip", seconds: -5 });
    expect(playerAction("ArrowRight", on("BUTTON"), none)).toEqual({ kind: "skip", seconds: 5 });
    expect(playerAction("x", on("BODY"), none)).toBeNull();
  });

  test("not while typing or choosing, not on a button's own Space, not with a modifier", () => {
    for (const target of [on("INPUT", "text"), on("INPUT", "search"), on("TEXTAREA"), on("SELECT"), on("AUDIO"), { tagName: "DIV", isContentEditable: true }])
      for (const key of [" ", "ArrowLeft", "ArrowRight"]) expect(playerAction(key, target, none)).toBeNull();
    expect(playerAction(" ", on("BUTTON"), none)).toBeNull();
    expect(playerAction(" ", on("A"), none)).toBeNull();
    expect(playerAction(" ", on("INPUT", "checkbox"), none)).toBeNull();
    expect(playerAction("ArrowRight", on("BODY"), { ...none, alt: true })).toBeNull();
  });

  test("video files play in a <video> element", () => {
    expect(["a.mp4", "b.MOV", "c.mkv", "d.webm"].every(isVideoFile)).toBe(true);
    expect(["a.mp3", "b.wav", "c.m4a", "noext"].some(isVideoFile)).toBe(false);
  });
});

describe("captions", () => {
  test("WebVTT cues with voice spans, escaped, one line each; empty segments make no cue", () => {
    expect(captionsOf([seg(1, 0, 1500, "Tom & Jerry <3\nend", "A <B>"), seg(2, 1500, 1500, "  "), seg(3, 3_600_000, 3_601_000, "late")])).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n<v A &lt;B&gt;>Tom &amp; Jerry &lt;3 end\n\n01:00:00.000 --> 01:00:01.000\nlate\n",
    );
  });
});

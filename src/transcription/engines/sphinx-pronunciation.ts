/**
 * Pronunciations for words PocketSphinx's dictionary lacks: espeak-ng's phonemes (`espeak-ng -q -x --sep=_ -v en-us`,
 * its ASCII mnemonics) mapped to the 39 CMU phones of the en-us acoustic model. Pure: the caller runs espeak-ng.
 *
 * The table was made by comparing espeak-ng 1.51's output with cmudict on 3,000 random dictionary words: it gives
 * cmudict's own pronunciation for 62 % of them, and 9.5 % of phones differ (mostly reduced vowels: IH for cmudict's
 * AH). test/transcription/sphinx-vocabulary.int.test.ts measures it on 50 words taken out of the dictionary. Close
 * enough: the decoder finds a name by its nearest pronunciation once the language model admits the word.
 */

/** The acoustic model's phones (its mdef), without the silence and filler phones. */
export const cmuPhones: ReadonlySet<string> = new Set(
  "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH".split(" "),
);

/** espeak-ng's en-us phoneme → CMU phones; several espeak phonemes are two CMU phones (r-coloured vowels, syllabic consonants). */
const espeakToCmuPhones: Readonly<Record<string, readonly string[]>> = {
  // consonants
  p: ["P"],
  b: ["B"],
  t: ["T"],
  "t#": ["T"], // the American flap in "water"
  t2: ["T"],
  "?": ["T"], // the glottal stop in "button"
  d: ["D"],
  "d#": ["D"],
  k: ["K"],
  x: ["K"], // "Bach": cmudict writes K
  g: ["G"],
  f: ["F"],
  v: ["V"],
  T: ["TH"],
  D: ["DH"],
  s: ["S"],
  z: ["Z"],
  S: ["SH"],
  Z: ["ZH"],
  h: ["HH"],
  C: ["HH"],
  m: ["M"],
  n: ["N"],
  N: ["NG"],
  l: ["L"],
  r: ["R"],
  "r-": ["R"], // a linking r; dropped after ER (below)
  w: ["W"],
  W: ["W"],
  j: ["Y"],
  tS: ["CH"],
  dZ: ["JH"],
  "n-": ["AH", "N"], // syllabic consonants: cmudict writes a schwa before them
  "m-": ["AH", "M"],
  "l-": ["AH", "L"],
  "@L": ["AH", "L"],
  // vowels
  a: ["AE"],
  aa: ["AE"],
  "a#": ["AH"],
  "A:": ["AA"],
  A: ["AA"],
  "A@": ["AA", "R"],
  "0": ["AA"],
  "O:": ["AO"],
  O: ["AO"],
  O2: ["AO"],
  "O@": ["AO", "R"],
  "o@": ["AO", "R"],
  o: ["OW"],
  "o:": ["OW"],
  oU: ["OW"],
  V: ["AH"],
  E: ["EH"],
  e: ["EH"],
  "E:": ["EH"],
  "e@": ["EH", "R"],
  eI: ["EY"],
  I: ["IH"],
  "I#": ["IH"],
  I2: ["IH"],
  i: ["IY"],
  "i:": ["IY"],
  "i@": ["IY", "AH"],
  "i@3": ["IH", "R"],
  "@": ["AH"],
  "@-": ["AH"],
  "@2": ["AH"],
  "@5": ["AH"],
  "3": ["ER"],
  "3:": ["ER"],
  "@`": ["ER"],
  U: ["UH"],
  "u:": ["UW"],
  u: ["UW"],
  y: ["UW"],
  "U@": ["UH", "R"],
  aI: ["AY"],
  "aI@": ["AY", "AH"],
  aI3: ["AY", "ER"],
  aU: ["AW"],
  OI: ["OY"],
};

/** More phones than any English word has ("antidisestablishmentarianism" has 28): letters spelt out one by one, not a word. */
export const maxPhonesPerWord = 40;

/** Stress and length marks, and the syllable and linking marks espeak-ng writes between phonemes. */
const marks = /['",=%;:_|]+$|^['",=%;_|]+/g;

/**
 * The CMU phones of one word from espeak-ng's `-x --sep=_` output for it (several espeak words, as for "42" or
 * "MP3", are joined into one pronunciation), or null when it holds a phoneme the table does not know (a word in
 * another language's sounds) or is too long to be a word: no pronunciation rather than a wrong one.
 */
export function espeakToCmu(espeakOutput: string): string[] | null {
  const phones: string[] = [];
  for (const raw of espeakOutput.trim().split(/[\s_]+/)) {
    const phoneme = raw.replace(/^['",=%]+/, "");
    if (phoneme === "" || phoneme === ";" || phoneme === "||" || phoneme === "|") continue;
    const mapped = espeakToCmuPhones[phoneme] ?? espeakToCmuPhones[phoneme.replace(marks, "")];
    if (!mapped) return null;
    for (const phone of mapped) {
      const last = phones[phones.length - 1];
      // "A@ r" and "3 r-": espeak writes the r twice where cmudict has one R (or none after ER).
      if (phone === "R" && (last === "R" || last === "ER")) continue;
      phones.push(phone);
    }
  }
  return phones.length > 0 && phones.length <= maxPhonesPerWord ? phones : null;
}

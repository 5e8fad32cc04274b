import { describe, expect, test } from "bun:test";
import { cmuPhones, espeakToCmu } from "../../src/transcription/engines/sphinx-pronunciation.ts";

// espeak-ng 1.51's `-q -x --sep=_ -v en-us` output for each word, and cmudict's entry for it.
const known: [word: string, espeak: string, cmudict: string][] = [
  ["thought", "T_'O:_t", "TH AO T"],
  ["church", "tS_'3:_tS", "CH ER CH"],
  ["judge", "dZ_'V_dZ", "JH AH JH"],
  ["measure", "m_'E_Z_3", "M EH ZH ER"],
  ["thinking", "T_'I_N_k_I_N", "TH IH NG K IH NG"],
  ["boy", "b_'OI", "B OY"],
  ["cow", "k_'aU", "K AW"],
  ["hello", "h_@_l_'oU", "HH AH L OW"],
  ["tomorrow", "t_@_m_'A:_r_oU", "T AH M AA R OW"],
  ["scouring", "s_k_'aU_3_r-_I_N", "S K AW ER IH NG"],
  ["varisco", "v_A@_r_'I_s_k_oU", "V AA R IH S K OW"],
  ["additionally", "a#_d_'I_S_@-_n_@L_i", "AH D IH SH AH N AH L IY"],
  ["betten", "b_'E_?_n-", "B EH T AH N"],
  ["water", "w_'O:_t#_3", "W AO T ER"],
];

describe("espeak-ng's phonemes as the acoustic model's phones", () => {
  test.each(known)("%s", (_word, espeak, cmudict) => {
    expect(espeakToCmu(espeak)!.join(" ")).toBe(cmudict);
  });

  test("every phone it gives is one of the model's 39", () => {
    for (const [, espeak] of known) for (const phone of espeakToCmu(espeak)!) expect(cmuPhones.has(phone)).toBe(true);
    expect(cmuPhones.size).toBe(39);
  });

  test("a token of several espeak words (a number, letters spelt out) is one pronunciation", () => {
    expect(espeakToCmu("f_'o@_t#_i t_'u:")!.join(" ")).toBe("F AO R T IY T UW");
  });

  test("stress, syllable and linking marks are not phones", () => {
    expect(espeakToCmu("'E_m p_,i: ;_T_r_'i:")!.join(" ")).toBe("EH M P IY TH R IY");
  });

  test("a phoneme it does not know gives no pronunciation rather than a wrong one", () => {
    expect(espeakToCmu("b_'Q_x_R")).toBeNull();
    expect(espeakToCmu("")).toBeNull();
    expect(espeakToCmu("  \n")).toBeNull();
    expect(espeakToCmu("'_,_;")).toBeNull();
  });

  test("letters spelt out past any word's length give no pronunciation", () => {
    expect(espeakToCmu(Array.from({ length: 13 }, () => "'E_k_s").join("_"))).toHaveLength(39);
    expect(espeakToCmu(Array.from({ length: 14 }, () => "'E_k_s").join("_"))).toBeNull();
  });
});

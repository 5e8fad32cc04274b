import { describe, expect, test } from "bun:test";
import { vocabularyOfPrompt } from "../../src/openai-compat/prompt-vocabulary.ts";
import { noChoice, recognitionChoice, type RecognitionOffer } from "../../src/tasks/recognition-choice.ts";

const sphinx: RecognitionOffer = { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] };

describe("OpenAI's prompt as a task's vocabulary", () => {
  test("a list: commas, semicolons and line breaks separate phrases, kept whole", () => {
    expect(vocabularyOfPrompt("Anja Müller, Kubernetes;  Helm chart\nArgoCD\r\nnode.js")).toEqual([
      "Anja Müller",
      "Kubernetes",
      "Helm chart",
      "ArgoCD",
      "node.js",
    ]);
  });

  test("prose: sentence ends separate phrases, and the marks around them go", () => {
    expect(vocabularyOfPrompt('The talk is about "Kubernetes". Anja Müller hosts it!')).toEqual(["The talk is about Kubernetes", "Anja Müller hosts it"]);
  });

  test("words otherwise, without the marks around them; C++ and 3.5 keep theirs", () => {
    expect(vocabularyOfPrompt("  Zyxel   (C++)  Quetzalcoatl 3.5 ")).toEqual(["Zyxel", "C++", "Quetzalcoatl", "3.5"]);
    expect(vocabularyOfPrompt("")).toEqual([]);
    expect(vocabularyOfPrompt(undefined)).toEqual([]);
    expect(vocabularyOfPrompt(" ,,; \n . ")).toEqual([]);
  });

  test("repeats once (ignoring case), in the prompt's order", () => {
    expect(vocabularyOfPrompt("Helm, helm, Kubernetes, HELM")).toEqual(["Helm", "Kubernetes"]);
  });

  test("at most 100 entries of at most 100 characters: a longer phrase gives its words, a longer word is dropped", () => {
    const many = Array.from({ length: 250 }, (_, i) => `word${i}`).join(" ");
    const kept = vocabularyOfPrompt(many);
    expect(kept.length).toBe(100);
    expect(kept.at(-1)).toBe("word99");
    const longPhrase = `${"alpha ".repeat(30)}omega`;
    expect(vocabularyOfPrompt(`${longPhrase}, ${"x".repeat(101)}, short`)).toEqual(["alpha", "omega", "short"]);
  });

  test("control characters separate; text-direction controls and lone surrogates are dropped", () => {
    const kept = vocabularyOfPrompt("Anja\u0000Müller\u001bKubernetes\u202eevil\u2066\ud800 Helm\u0085Argo");
    expect(kept).toEqual(["Anja", "Müller", "Kubernetesevil Helm", "Argo"]);
    for (const entry of kept) expect(entry).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(vocabularyOfPrompt("one\ttwo")).toEqual(["one", "two"]);
  });

  test("whatever the prompt, the vocabulary passes the tasks capability's own rules unchanged", () => {
    const prompts = ["a, b, A", `${"é".repeat(100)}, ${"z ".repeat(5000)}`, "\u0000".repeat(10_000), "__proto__, constructor, toString", "x".repeat(10_000)];
    for (const prompt of prompts) {
      const vocabulary = vocabularyOfPrompt(prompt);
      expect(vocabulary.length).toBeLessThanOrEqual(100);
      for (const entry of vocabulary) expect(entry.length).toBeLessThanOrEqual(100);
      expect(recognitionChoice({ vocabulary }, sphinx)).toEqual({ ...noChoice, vocabulary });
    }
  });

  test("a 10,000-character prompt of marks is read in linear time", () => {
    const started = performance.now();
    expect(vocabularyOfPrompt(`a${"!".repeat(9_998)}b`)).toEqual([]);
    expect(vocabularyOfPrompt(`a${"-".repeat(9_998)}b`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

// The induction model live on its page: a port of handtf.patterns.induction (the rule, the forward pass of
// the two-layer model, both heads' attention) and the widget that shows it.
//
// The weights come from induction-model.js, which hooks/playground.py writes from
// handtf.induction_head() on every build. The maths is handtf.js's (its forward pass, argmax and
// the figures' colours), imported, not copied. tests/test_induction_port.py holds this port to
// numpy: both heads' attention and the logits of every sequence of length 1 to 5 over "abc", of
// random longer ones, and of models over other alphabets.
//
// An element <div data-handtf-induction="abcab"> becomes the widget: type a sequence over the
// alphabet, see the previous-token head's and the induction head's attention, the prediction at
// every position and the positions the rule claims. Bad input is refused as Python refuses it.

import * as H from "./handtf.js";
import { pyRepr, shownChar } from "./handtf.js";
import { colourScheme, escape, mapFigure, markScrollMaps, mountWidgets } from "./playground.js";
import { CHARS, EMBED_LABELS, MODEL, N_CTX, N_HEAD } from "./induction-model.js";

/** The generated model, in the form of handtf's InductionHead (chars, n_ctx, n_head, weights). */
export const INDUCTION = H.deepFreeze({ chars: CHARS, n_ctx: N_CTX, n_head: N_HEAD, weights: MODEL, embed_labels: EMBED_LABELS });

// ------------------------------------------------------------ checks at the boundary (as handtf.patterns.induction's)

// Python's repr of a str and of one character, shared with the adder's widget (handtf.js)
export { pyRepr, shownChar };

/** A model as induction_head() gives it: distinct one-character tokens, two blocks of attention. */
export function checkInductionModel(model) {
  if (model === null || typeof model !== "object" || !Array.isArray(model.chars) || !Number.isInteger(model.n_ctx)) {
    throw new TypeError("model must be an InductionHead (from induction_head()): {chars, n_ctx, n_head, weights}");
  }
  const [nVocab, nCtx] = H.checkModel(model.weights);
  if (model.chars.length !== nVocab || new Set(model.chars).size !== nVocab || !model.chars.every((c) => [...c].length === 1)) {
    throw new Error(`model.chars must be ${nVocab} distinct characters (one per row of wte), got ${JSON.stringify(model.chars)}`);
  }
  if (model.n_ctx !== nCtx) throw new Error(`model.n_ctx must be the rows of wpe, ${nCtx}, got ${model.n_ctx}`);
  if (model.weights.blocks.length !== 2) throw new Error(`the induction model has 2 blocks, got ${model.weights.blocks.length}`);
  if (model.n_head !== 1) throw new Error(`the induction model has 1 head per block, got n_head = ${model.n_head}`);
}

/** The token ids of `text`, refused as handtf.induction_attention refuses it (the same messages). */
export function tokenize(text, model = INDUCTION) {
  const chars = typeof text === "string" ? [...text] : null; // code points, as Python's len counts
  if (chars === null || chars.length < 1 || chars.length > model.n_ctx) {
    const got = chars === null ? (text === null ? "null" : typeof text) : pyRepr(text);
    throw new Error(`text must be a str of 1 to ${model.n_ctx} characters (n_ctx), got ${got}`);
  }
  const unknown = [...new Set(chars.filter((c) => !model.chars.includes(c)))].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  if (unknown.length) {
    throw new Error(`text has characters outside the alphabet ${pyRepr(model.chars.join(""))}: ${unknown.map(pyRepr).join(", ")}`);
  }
  return chars.map((c) => model.chars.indexOf(c));
}

// ------------------------------------------------------------ the rule and the model

/**
 * `handtf.induction_rule`: for each position, the character that followed the most recent earlier
 * occurrence of its character, or null where the character is new.
 */
export function inductionRule(text) {
  if (typeof text !== "string") throw new TypeError(`text must be a str, got ${text === null ? "null" : typeof text}`);
  const chars = [...text];
  return chars.map((c, i) => {
    const earlier = chars.lastIndexOf(c, i - 1); // the most recent occurrence before i (-1: none)
    return i > 0 && earlier >= 0 ? chars[earlier + 1] : null;
  });
}

/**
 * `handtf.induction_attention` and more: both heads' attention patterns [n_seq][n_seq], the logits
 * [n_seq][n_vocab], the prediction at each position (argmax, the lower id on a tie, as numpy),
 * where each head looks, and the rule's claim at each position.
 */
export function inductionTrace(text, model = INDUCTION) {
  checkInductionModel(model);
  const tokens = tokenize(text, model);
  const { layers, logits } = H.forward(tokens, model.weights);
  const [first, second] = layers.map((steps) => steps.attention_weights);
  return {
    text,
    tokens,
    first,
    second,
    logits,
    looks: [first, second].map((pattern) => pattern.map(H.argmax)),
    predictions: logits.map((row) => model.chars[H.argmax(row)]),
    rule: inductionRule(text),
  };
}

/** `handtf.induction_attention(model, text)`: [first, second, logits]. */
export function inductionAttention(text, model = INDUCTION) {
  const { first, second, logits } = inductionTrace(text, model);
  return [first, second, logits];
}

// ------------------------------------------------------------ the widget

const TEXT = {
  en: {
    sequence: "Sequence",
    help: (chars, n) => `letters ${listOf(chars, "and")}; at most ${n}`,
    empty: (chars) => `Type at least one letter: ${listOf(chars, "or")}.`,
    tooLong: (n, got) => `At most ${n} letters (n_ctx, positions 0 to ${n - 1}): this has ${got}.`,
    badChar: (char, position, chars) =>
      `“${char}” at position ${position} (counting from 0) is not in the alphabet: use only ${listOf(chars, "and")}.`,
    stale: (problem) => `${problem} The results below are still those of the last valid sequence.`,
    summary: (text, predicted, claim) =>
      `After “${text}” the model predicts ${predicted}; ` +
      (claim === null ? "the rule claims nothing there (the last letter is new)." : `the rule says ${claim}.`),
    table: "Position by position",
    position: "position",
    token: "token",
    look1: "layer 1 looks at",
    look2: "layer 2 looks at",
    predicted: "prediction",
    rule: "the rule",
    notClaimed: "—",
    first: "Layer 1: previous-token head",
    second: "Layer 2: induction head",
    mapTitle: (head) => `${head} (attention weights)`,
  },
  zh: {
    sequence: "序列",
    help: (chars, n) => `只含字母 ${chars.join("、")}；最多 ${n} 个`,
    empty: (chars) => `请至少输入一个字母：${chars.join("、")}。`,
    tooLong: (n, got) => `最多 ${n} 个字母（n_ctx，位置 0 到 ${n - 1}），这里有 ${got} 个。`,
    badChar: (char, position, chars) => `位置 ${position}（从 0 数起）上的“${char}”不在字母表中：只能用 ${chars.join("、")}。`,
    stale: (problem) => `${problem}下面的结果仍是上一个有效序列的结果。`,
    summary: (text, predicted, claim) =>
      `在“${text}”之后，模型预测 ${predicted}；` +
      (claim === null ? "规则在这里不作断言（最后一个字母是第一次出现）。" : `规则说是 ${claim}。`),
    table: "逐个位置",
    position: "位置",
    token: "词元",
    look1: "第 1 层关注",
    look2: "第 2 层关注",
    predicted: "预测",
    rule: "规则",
    notClaimed: "—",
    first: "第 1 层：前一词元头",
    second: "第 2 层：归纳头",
    mapTitle: (head) => `${head}（注意力权重）`,
  },
};

function listOf(chars, word) {
  return chars.length <= 2 ? chars.join(` ${word} `) : `${chars.slice(0, -1).join(", ")} ${word} ${chars.at(-1)}`;
}

/** What the widget says about `text`: null if the model reads it, else the reader's message (positions from 0). */
export function problemOf(text, t = TEXT.en, model = INDUCTION) {
  const chars = [...text];
  if (!chars.length) return t.empty(model.chars);
  // in handtf.induction_attention's order: the length, then the characters
  if (chars.length > model.n_ctx) return t.tooLong(model.n_ctx, chars.length);
  const position = chars.findIndex((c) => !model.chars.includes(c));
  if (position >= 0) return t.badChar(shownChar(chars[position]), position, model.chars);
  return null;
}

// one attention pattern as a heat map, coloured as the page's figures of the scheme
function heatmap(name, title, pattern, labels) {
  const norm = H.divergingNorm(pattern);
  const head = `<tr><td></td>${labels.map((l) => `<th scope="col">${escape(l)}</th>`).join("")}</tr>`;
  const body = pattern
    .map((row, i) => {
      const cells = row.map((value) => {
        const { fill, text } = H.cellColours(value, norm, colourScheme());
        return `<td style="background:${fill};color:${text}">${H.cellText(value)}</td>`;
      });
      return `<tr><th scope="row">${escape(labels[i])}</th>${cells.join("")}</tr>`;
    })
    .join("");
  return mapFigure(name, title, head, body);
}

// the positions as columns: token, where each head looks, the prediction, the rule's claim
function positionTable(t, trace) {
  const chars = [...trace.text];
  const row = (label, cells) => `<tr><th scope="row">${escape(label)}</th>${cells.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`;
  const [look1, look2] = trace.looks;
  const body = [
    row(t.token, chars),
    row(t.look1, look1.map(String)),
    row(t.look2, look2.map(String)),
    row(t.predicted, trace.predictions),
    row(t.rule, trace.rule.map((c) => (c === null ? t.notClaimed : c))),
  ].join("");
  const head = `<tr><th scope="col">${escape(t.position)}</th>${chars.map((_, i) => `<th scope="col">${i}</th>`).join("")}</tr>`;
  return mapFigure("positions", t.table, head, body);
}

let uid = 0;

function mount(root, t, model = INDUCTION) {
  uid += 1;
  const id = `handtf-induction-${uid}`;
  const initial = root.dataset.handtfInduction || "abcab";
  root.innerHTML =
    `<div class="handtf-field"><label for="${id}">${escape(t.sequence)}</label> ` +
    `<input id="${id}" class="handtf-context handtf-induction-text" type="text" value="${escape(initial)}" spellcheck="false" ` +
    `autocomplete="off" autocapitalize="off" aria-describedby="${id}-help"> ` +
    `<span id="${id}-help" class="handtf-help">${escape(t.help(model.chars, model.n_ctx))}</span></div>` +
    `<p class="handtf-message" role="alert"></p>` +
    `<p class="handtf-prediction" aria-live="polite"></p>` +
    `<div class="handtf-induction-results"></div>`;
  const input = root.querySelector("input");
  const message = root.querySelector(".handtf-message");
  const results = [root.querySelector(".handtf-prediction"), root.querySelector(".handtf-induction-results")];
  let text = initial;

  function render() {
    const trace = inductionTrace(text, model);
    const last = trace.text.length - 1;
    results[0].textContent = t.summary(trace.text, trace.predictions[last], trace.rule[last]);
    const labels = [...trace.text].map((c, i) => `${i}:${c}`);
    results[1].innerHTML =
      positionTable(t, trace) +
      `<div class="handtf-maps">` +
      heatmap("first", t.mapTitle(t.first), trace.first, labels) +
      heatmap("second", t.mapTitle(t.second), trace.second, labels) +
      `</div>`;
    markScrollMaps(root); // a map wider than its box scrolls sideways and is then a tab stop
  }

  input.addEventListener("input", () => {
    const problem = problemOf(input.value, t, model);
    message.textContent = problem ? t.stale(problem) : "";
    // the last valid results stay, framed as stale (not dimmed: dimmed text would fail contrast AA)
    for (const part of results) part.classList.toggle("handtf-induction-stale", Boolean(problem));
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      return;
    }
    input.removeAttribute("aria-invalid");
    text = input.value;
    render();
  });
  const problem = problemOf(text, t, model);
  if (problem) {
    message.textContent = problem; // a page's data-handtf-induction that the model cannot read
    text = model.chars.join("").slice(0, model.n_ctx);
    input.value = text;
  }
  render();
  return render;
}

if (typeof window !== "undefined") {
  window.handtfInduction = Object.freeze({ INDUCTION, inductionRule, inductionTrace, inductionAttention, tokenize, pyRepr, problemOf, TEXT });
  mountWidgets("[data-handtf-induction]", mount, TEXT);
}

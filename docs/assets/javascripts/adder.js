// The adder live on its page: the interface of handtf.patterns.addition (greedy decoding, adder_steps, the
// numbers' checks) on handtf.js's one forward pass (several heads, a GELU feed-forward network), and the widget.
//
// The weights come from adder-model.js, which hooks/playground.py writes from handtf.adder() on
// every build. tests/test_adder_port.py holds this port to numpy: every step's attention, logits,
// digit, sums and carry, on many additions.
//
// An element <div data-handtf-adder="958 67"> becomes the widget: type two numbers, see each digit
// of the sum as the model writes it, where both heads look at each step, and the carry.

import * as H from "./handtf.js";
import { colourScheme, escape, mapFigure, markScrollMaps, mountWidgets } from "./playground.js";
import { CHARS, EMBED_LABELS, MODEL, N_DIGITS, N_HEAD } from "./adder-model.js";

export const ADDER = H.deepFreeze({ chars: CHARS, n_digits: N_DIGITS, n_head: N_HEAD, weights: MODEL, embed_labels: EMBED_LABELS });
const COLUMN = EMBED_LABELS.indexOf("a+b");
const BEFORE = EMBED_LABELS.indexOf("a'+b'+s'");

// ------------------------------------------------------------ the model (handtf.js's one forward pass)

/** The model's checks at the boundary: handtf.checkModel's layout, and a vocabulary of the adder's tokens. */
export function checkAdder(model) {
  if (model === null || typeof model !== "object" || !Array.isArray(model.chars) || !Number.isInteger(model.n_digits)) {
    throw new TypeError("model must be an Adder (from adder()): {chars, n_digits, n_head, weights}");
  }
  const [nVocab, nCtx] = H.checkModel(model.weights);
  if (model.chars.length !== nVocab) throw new Error(`model.chars must name one character per row of wte (${nVocab}), got ${model.chars.length}`);
  if (nCtx !== 3 * model.n_digits + 2) {
    throw new Error(`Adder.n_digits = ${model.n_digits} needs ${3 * model.n_digits + 2} positions, got weights with ${nCtx} (wpe's rows)`);
  }
}

/** handtf.gpt on one sequence (H.forward, the one forward pass), with each block's attention and its residual after attention. */
export function forward(tokens, model = ADDER) {
  const { logits, layers } = H.forward(tokens, model.weights, model.n_head);
  return { logits, layers: layers.map((l) => ({ attention: l.attention_weights, afterAttention: l.attention_residual })) };
}

// ------------------------------------------------------------ the numbers (as handtf.patterns.addition's boundary)

/** Python's repr of one character (the quotes it picks, its short escapes, \\x, \\u, \\U for what it does not print). */
function charRepr(c) {
  const short = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" }[c];
  const body = short || (H.printable(c) ? c : H.escapedChar(c));
  return c === "'" ? `"'"` : `'${body}'`;
}

/**
 * What is wrong with `value` (a str) as a number of at most n digits, or null: {kind, ...} in the order of
 * handtf.readers.check_decimal (empty, a minus sign, a character that is not a digit, too many digits).
 * The messages are written from it in Python's words (`digitsOf`, and the widget in English) or in Chinese.
 */
export function numberProblem(value, n) {
  if (value === "") return { kind: "empty" };
  if (value[0] === "-") return { kind: "negative" };
  const chars = [...value]; // code points, as Python counts positions
  const position = chars.findIndex((c) => !"0123456789".includes(c));
  if (position >= 0) return { kind: "notDigits", char: chars[position], position };
  const digits = value.replace(/^0+(?=.)/, "");
  if (digits.length > n) return { kind: "tooLong", digits: digits.length, n };
  return null;
}

// handtf.readers.check_decimal's messages (tests/test_adder_port.py and tests/test_forward_parity.py compare)
const PYTHON = {
  empty: (name) => `${name} is empty; write it with the digits 0-9`,
  negative: (name) => `${name} starts with a minus sign; the adder takes numbers of 0 or more, written with the digits 0-9`,
  notDigits: (name, p) => `${name} has ${charRepr(p.char)} at position ${p.position}; write it with the digits 0-9 only`,
  tooLong: (name, p) => `${name} has ${p.digits.toLocaleString("en-US")} digits; this model reads at most ${p.n} (n_digits)`,
};

/** The n decimal digits of `value` (a str), least significant first; refused as check_decimal refuses it, in its words. */
export function digitsOf(name, value, n) {
  if (typeof value !== "string") throw new TypeError(`${name} must be a whole number (int or a str of digits), got ${typeof value}`);
  const problem = numberProblem(value, n);
  if (problem) throw new Error(PYTHON[problem.kind](name, problem));
  return [...value.replace(/^0+(?=.)/, "").padStart(n, "0")].reverse().map(Number);
}

/** `model.prompt(a, b)`: both numbers least significant digit first, padded, with + and =. */
export function prompt(a, b, model = ADDER) {
  return `${digitsOf("a", a, model.n_digits).join("")}+${digitsOf("b", b, model.n_digits).join("")}=`;
}

/** `handtf.adder_steps(model, a, b)`: each digit greedy decoding writes, with the attention, sums and carry. */
export function adderSteps(a, b, model = ADDER) {
  checkAdder(model);
  const ids = [...prompt(a, b, model)].map((c) => model.chars.indexOf(c));
  const steps = [];
  for (let i = 0; i <= model.n_digits; i++) {
    const { logits, layers } = forward(ids, model);
    const last = ids.length - 1;
    if (!logits[last].every(Number.isFinite)) { // as gpt's result guard: no digit is read off logits that are not finite
      throw new Error(`the model's logits are not finite after tokens [${ids.join(", ")}] (they overflow float64); use smaller weights`);
    }
    const digit = H.argmax(logits[last]);
    const row = layers[0].afterAttention[last];
    const current = ids[last] < 10 ? ids[last] : 0;
    steps.push({
      position: last,
      digit,
      column: row[COLUMN],
      before: row[BEFORE],
      carry: Math.round(row[BEFORE] - 2 * current) > 0 ? 1 : 0,
      attention: layers[0].attention.map((pattern) => pattern[last]),
      logits: logits[last],
    });
    ids.push(digit);
  }
  return steps;
}

/** The sum the model writes, as a str of digits (most significant first, leading zeros dropped). */
export function add(a, b, model = ADDER) {
  const digits = adderSteps(a, b, model).map((s) => s.digit);
  return digits.reverse().join("").replace(/^0+(?=.)/, "");
}

// ------------------------------------------------------------ the widget

export const TEXT = {
  en: {
    a: "a",
    b: "b",
    help: (n) => `whole numbers of at most ${n} digits`,
    ...PYTHON, // Python's words, which say what is wrong
    stale: (problem) => `${problem}. The results below are still those of the last valid numbers.`,
    summary: (a, b, written, right) => `${a} + ${b}: the model writes ${written}` + (right ? ", which is right." : ", which is not the sum."),
    table: "Step by step (the sum is written from its units up)",
    step: "step",
    writes: "writes",
    head0: "head 0 reads",
    head1: "head 1 reads",
    column: "a+b",
    before: "a'+b'+s'",
    carry: "carry in",
    prompt: "the model reads",
    maps: (head) => `head ${head}: attention of each step`,
    row: (i) => `s${i}`,
  },
  zh: {
    a: "a",
    b: "b",
    help: (n) => `最多 ${n} 位的非负整数`,
    empty: (name) => `${name} 是空的：请用数字 0–9 写一个数`,
    negative: (name) => `${name} 以负号开头：这个加法器只算 0 或更大的数，请只用数字 0–9`,
    notDigits: (name, p) => `${name} 的位置 ${p.position}（从 0 数起）上是“${p.shown}”，不是数字：请只用数字 0–9`,
    tooLong: (name, p) => `${name} 有 ${p.digits} 位：这个模型最多读 ${p.n} 位（n_digits）`,
    stale: (problem) => `${problem}。下面的结果仍是上一组有效数字的结果。`,
    summary: (a, b, written, right) => `${a} + ${b}：模型写出 ${written}，` + (right ? "是对的。" : "与正确的和不同。"),
    table: "逐步（和从个位往上写）",
    step: "步",
    writes: "写出",
    head0: "头 0 读",
    head1: "头 1 读",
    column: "a+b",
    before: "a'+b'+s'",
    carry: "进位",
    prompt: "模型读到",
    maps: (head) => `头 ${head}：每一步的注意力`,
    row: (i) => `s${i}`,
  },
};

/**
 * What the widget says about two typed numbers: null if the model reads them, else the message. Without
 * `t`, Python's message (what `model.prompt(a, b)` raises); with a TEXT entry, the widget's words in its language.
 */
export function problemOf(a, b, model = ADDER, t = null) {
  for (const [name, value] of [["a", a.trim()], ["b", b.trim()]]) {
    const problem = numberProblem(value, model.n_digits);
    if (problem) return (t ?? PYTHON)[problem.kind](name, { ...problem, shown: problem.char === undefined ? "" : H.shownChar(problem.char) });
  }
  return null;
}

function heatmap(name, title, pattern, rows, cols) {
  const norm = { vmin: -1, vmax: 1, scale: (x) => (x + 1) / 2 };
  const head = `<tr><td></td>${cols.map((l) => `<th scope="col">${escape(l)}</th>`).join("")}</tr>`;
  const body = pattern
    .map((row, i) => {
      const cells = row.map((value) => {
        const { fill, text } = H.cellColours(value, norm, colourScheme());
        const shown = value === 0 ? "" : String(Math.round(value * 100) / 100);
        return `<td style="background:${fill};color:${text}">${shown}</td>`;
      });
      return `<tr><th scope="row">${escape(rows[i])}</th>${cells.join("")}</tr>`;
    })
    .join("");
  return mapFigure(name, title, head, body);
}

function stepTable(t, steps, text) {
  const looked = (head) => steps.map((s) => s.attention[head].flatMap((p, j) => (p > 0.01 ? [`${j}:${text[j]}`] : [])).join(" "));
  const row = (label, cells) => `<tr><th scope="row">${escape(label)}</th>${cells.map((c) => `<td>${escape(String(c))}</td>`).join("")}</tr>`;
  const round = (x) => String(Math.round(x * 1000) / 1000);
  const body = [
    row(t.writes, steps.map((s) => s.digit)),
    row(t.head0, looked(0)),
    row(t.column, steps.map((s) => round(s.column))),
    row(t.head1, looked(1)),
    row(t.before, steps.map((s) => round(s.before))),
    row(t.carry, steps.map((s) => s.carry)),
  ].join("");
  const head = `<tr><th scope="col">${escape(t.step)}</th>${steps.map((_, i) => `<th scope="col">${escape(t.row(i))}</th>`).join("")}</tr>`;
  return mapFigure("steps", t.table, head, body);
}

let uid = 0;

function mount(root, t, model = ADDER) {
  uid += 1;
  const id = `handtf-adder-${uid}`;
  let [a, b] = (root.dataset.handtfAdder || "958 67").split(/\s+/);
  const field = (name, value) =>
    `<label for="${id}-${name}">${escape(t[name])}</label> <input id="${id}-${name}" class="handtf-context handtf-adder-number" ` +
    `type="text" inputmode="numeric" value="${escape(value)}" spellcheck="false" autocomplete="off" aria-describedby="${id}-help">`;
  root.innerHTML =
    `<div class="handtf-field">${field("a", a)} + ${field("b", b)} ` +
    `<span id="${id}-help" class="handtf-help">${escape(t.help(model.n_digits))}</span></div>` +
    `<p class="handtf-message" role="alert"></p>` +
    `<p class="handtf-prediction" aria-live="polite"></p>` +
    `<div class="handtf-adder-results"></div>`;
  const inputs = [...root.querySelectorAll("input")];
  const message = root.querySelector(".handtf-message");
  const results = [root.querySelector(".handtf-prediction"), root.querySelector(".handtf-adder-results")];

  function render() {
    const steps = adderSteps(a, b, model);
    const text = prompt(a, b, model) + steps.slice(0, -1).map((s) => s.digit).join("");
    const written = steps.map((s) => s.digit).reverse().join("").replace(/^0+(?=.)/, "");
    const right = written === (BigInt(a) + BigInt(b)).toString();
    results[0].textContent = t.summary(BigInt(a).toString(), BigInt(b).toString(), written, right);
    const cols = [...text].map((c, i) => `${i}:${c}`);
    const rows = steps.map((_, i) => t.row(i));
    const map = (head) => steps.map((s) => cols.map((_, j) => (j < s.attention[head].length ? s.attention[head][j] : 0)));
    results[1].innerHTML =
      `<p class="handtf-adder-prompt">${escape(t.prompt)}: <code>${escape(prompt(a, b, model))}</code></p>` +
      stepTable(t, steps, text) +
      `<div class="handtf-maps">` +
      heatmap("head0", t.maps(0), map(0), rows, cols) +
      heatmap("head1", t.maps(1), map(1), rows, cols) +
      `</div>`;
    markScrollMaps(root);
  }

  const update = () => {
    const problem = problemOf(inputs[0].value, inputs[1].value, model, t);
    message.textContent = problem ? t.stale(problem) : "";
    for (const part of results) part.classList.toggle("handtf-adder-stale", Boolean(problem));
    inputs.forEach((input) => input.toggleAttribute("aria-invalid", Boolean(problem)));
    if (problem) return;
    [a, b] = inputs.map((input) => input.value.trim());
    render();
  };
  inputs.forEach((input) => input.addEventListener("input", update));
  if (problemOf(a, b, model)) [a, b] = ["958", "67"];
  render();
  return render;
}

if (typeof window !== "undefined") {
  window.handtfAdder = Object.freeze({ ADDER, forward, adderSteps, add, prompt, digitsOf, problemOf, TEXT });
  mountWidgets("[data-handtf-adder]", mount, TEXT);
}

// The adder live on its page: a port of handtf.patterns.addition (GPT-2's forward pass with several heads
// and a GELU feed-forward network, greedy decoding, adder_steps) and the widget that shows it.
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

// ------------------------------------------------------------ the maths (one sequence)

function matmul(x, w) {
  const p = w[0].length;
  return x.map((row) => {
    const out = new Array(p).fill(0);
    for (let i = 0; i < row.length; i++) for (let j = 0; j < p; j++) out[j] += row[i] * w[i][j];
    return out;
  });
}

function linear(x, { w, b }) {
  return matmul(x, w).map((row) => row.map((value, j) => value + b[j]));
}

function addRows(x, y) {
  return x.map((row, i) => row.map((value, j) => value + y[i][j]));
}

// GPT-2's GELU, as handtf.gelu: the tanh approximation, its argument clipped at ±10 inside the tanh
function gelu(x) {
  const c = Math.sqrt(2 / Math.PI);
  const xc = Math.min(Math.max(x, -10), 10);
  return 0.5 * x * (1 + Math.tanh(c * (xc + 0.044715 * (xc * xc * xc))));
}

// causal multi-head self-attention (handtf.mha): the output and each head's weights [n_head][n_seq][n_seq]
function mha(x, { c_attn, c_proj }, nHead) {
  const qkv = linear(x, c_attn);
  const nEmbd = x[0].length;
  const dHead = nEmbd / nHead;
  const weights = [];
  const merged = x.map(() => new Array(nEmbd).fill(0));
  for (let h = 0; h < nHead; h++) {
    const part = (offset) => qkv.map((row) => row.slice(offset + h * dHead, offset + (h + 1) * dHead));
    const [q, k, v] = [part(0), part(nEmbd), part(2 * nEmbd)];
    const pattern = q.map((qi, i) => {
      const scores = k.map((kj, j) => (j > i ? -1e10 : qi.reduce((s, value, d) => s + value * kj[d], 0) / Math.sqrt(dHead)));
      const top = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - top));
      const sum = exps.reduce((s, e) => s + e, 0);
      return exps.map((e) => e / sum);
    });
    weights.push(pattern);
    pattern.forEach((row, i) => {
      for (let d = 0; d < dHead; d++) merged[i][h * dHead + d] = row.reduce((s, p, j) => s + p * v[j][d], 0);
    });
  }
  return { output: linear(merged, c_proj), weights };
}

/** handtf.gpt2 on one sequence, keeping the first block's attention and its residual after attention. */
export function forward(tokens, model = ADDER) {
  const w = model.weights;
  let x = tokens.map((t, i) => w.wte[t].map((value, j) => value + w.wpe[i][j]));
  const layers = [];
  for (const block of w.blocks) {
    const attention = mha(x, block.attn, model.n_head);
    x = addRows(x, attention.output);
    const afterAttention = x;
    if (block.mlp) {
      const hidden = linear(x, block.mlp.c_fc).map((row) => row.map(gelu));
      x = addRows(x, linear(hidden, block.mlp.c_proj));
    }
    layers.push({ attention: attention.weights, afterAttention });
  }
  const logits = matmul(x, w.wte[0].map((_, j) => w.wte.map((row) => row[j])));
  return { logits, layers };
}

// ------------------------------------------------------------ the numbers (as handtf.patterns.addition's boundary)

/** Python's repr of one character (the quotes it picks, its short escapes, \\x, \\u, \\U for what it does not print). */
function charRepr(c) {
  const short = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" }[c];
  const body = short || (H.printable(c) ? c : H.escapedChar(c));
  return c === "'" ? `"'"` : `'${body}'`;
}

/**
 * The n decimal digits of `value` (a str), least significant first; refused in the words of
 * handtf.readers.check_decimal, which reads the package's numbers (tests/test_adder_port.py compares).
 */
export function digitsOf(name, value, n) {
  if (value === "") throw new Error(`${name} is empty; write it with the digits 0-9`);
  if (value[0] === "-") throw new Error(`${name} starts with a minus sign; the adder takes numbers of 0 or more, written with the digits 0-9`);
  const chars = [...value]; // code points, as Python counts positions
  const bad = chars.findIndex((c) => !"0123456789".includes(c));
  if (bad >= 0) throw new Error(`${name} has ${charRepr(chars[bad])} at position ${bad}; write it with the digits 0-9 only`);
  const digits = value.replace(/^0+(?=.)/, "");
  if (digits.length > n) throw new Error(`${name} has ${digits.length.toLocaleString("en-US")} digits; this model reads at most ${n} (n_digits)`);
  return [...digits.padStart(n, "0")].reverse().map(Number);
}

/** `model.prompt(a, b)`: both numbers least significant digit first, padded, with + and =. */
export function prompt(a, b, model = ADDER) {
  return `${digitsOf("a", a, model.n_digits).join("")}+${digitsOf("b", b, model.n_digits).join("")}=`;
}

/** `handtf.adder_steps(model, a, b)`: each digit greedy decoding writes, with the attention, sums and carry. */
export function adderSteps(a, b, model = ADDER) {
  const ids = [...prompt(a, b, model)].map((c) => model.chars.indexOf(c));
  const steps = [];
  for (let i = 0; i <= model.n_digits; i++) {
    const { logits, layers } = forward(ids, model);
    const last = ids.length - 1;
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

const TEXT = {
  en: {
    a: "a",
    b: "b",
    help: (n) => `whole numbers of at most ${n} digits`,
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

/** What the widget says about two typed numbers: null if the model reads them, else the message. */
export function problemOf(a, b, model = ADDER) {
  try {
    prompt(a.trim(), b.trim(), model);
    return null;
  } catch (error) {
    return error.message;
  }
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
    const problem = problemOf(inputs[0].value, inputs[1].value, model);
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

// Kubernetes quantities in the form the API server stores them, so that what
// the hook returns equals what it reads back (under server-side apply the
// record of what was applied carries the stored values: 1000m → 1, 1024Mi → 1Gi).
// The rules of k8s.io/apimachinery's Quantity: the suffix family is kept
// (binary Ki…Ei, decimal SI m…E, or an exponent eN); binary values below 1024
// or with a fraction become decimal SI; decimal values are rounded up to the
// milli and written with the largest suffix that keeps the number an integer.
// A string that is not a quantity is returned as it is (the API server reports it).

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const DECIMAL_EXP: Readonly<Record<string, number>> = {
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL_EXP).map(([s, e]) => [e, s]));

/** value = numerator / 10^scale, exactly. */
interface Exact {
  numerator: bigint;
  scale: number;
}

function parseExact(digits: string, suffix: string): Exact {
  const [whole = "", fraction = ""] = digits.split(".");
  let numerator = BigInt(`${whole}${fraction}` || "0");
  let scale = fraction.length;
  const binary = BINARY.indexOf(suffix);
  if (binary > 0) numerator *= 1024n ** BigInt(binary);
  else {
    const exp = /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : (DECIMAL_EXP[suffix] ?? 0);
    if (exp >= 0) numerator *= 10n ** BigInt(exp);
    else scale -= exp;
  }
  return { numerator, scale };
}

/** The value in thousandths, rounded up (the API server keeps milli precision). */
function ceilMilli({ numerator, scale }: Exact): bigint {
  if (scale <= 3) return numerator * 10n ** BigInt(3 - scale);
  const divisor = 10n ** BigInt(scale - 3);
  const q = numerator / divisor;
  return numerator % divisor === 0n ? q : q + 1n;
}

function formatDecimal(milli: bigint, exponentForm: boolean): string {
  if (milli === 0n) return "0";
  let mantissa = milli;
  let exp = -3;
  while (mantissa % 1000n === 0n && exp < 18) {
    mantissa /= 1000n;
    exp += 3;
  }
  if (exponentForm) return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
  return `${mantissa}${DECIMAL_SUFFIX.get(exp) ?? ""}`;
}

/**
 * A binary-suffixed whole number of at least 1024 bytes, with the largest
 * binary suffix that keeps it whole; undefined for anything else (written decimal).
 */
function formatBinary(exact: Exact, suffix: string): string | undefined {
  if (suffix === "" || !BINARY.includes(suffix)) return undefined;
  const isInteger = exact.scale <= 0 || exact.numerator % 10n ** BigInt(exact.scale) === 0n;
  if (!isInteger) return undefined;
  let bytes = exact.scale <= 0 ? exact.numerator : exact.numerator / 10n ** BigInt(exact.scale);
  if (bytes < 1024n) return undefined;
  let power = 0;
  while (bytes % 1024n === 0n && power < BINARY.length - 1) {
    bytes /= 1024n;
    power += 1;
  }
  return `${bytes}${BINARY[power]}`;
}

/** A quantity's value in thousandths, rounded up; undefined when the text is not a quantity. */
export function quantityMilli(text: string): bigint | undefined {
  const m = QUANTITY.exec(text);
  if (m === null) return undefined;
  const [, sign = "", digits = "", suffix = ""] = m;
  const milli = ceilMilli(parseExact(digits, suffix));
  return sign === "-" ? -milli : milli;
}

export function canonicalQuantity(text: string): string {
  const m = QUANTITY.exec(text);
  if (m === null) return text;
  const [, sign = "", digits = "", suffix = ""] = m;
  const exact = parseExact(digits, suffix);
  const negative = sign === "-" && exact.numerator !== 0n;
  const out = formatBinary(exact, suffix) ?? formatDecimal(ceilMilli(exact), /^[eE]/.test(suffix));
  return negative ? `-${out}` : out;
}

/** Every value of a resource list (requests, limits) in stored form. */
export function canonicalQuantities(
  list: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, canonicalQuantity(v)]));
}

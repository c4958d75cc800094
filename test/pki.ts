// Certificates for the tests, made with openssl in a directory: a CA, and
// keys with certificates it signs (serving or client, by the extensions given).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** `<name>.key` and a self-signed `<name>.crt` for `subject`, valid two days. */
export function makeCa(dir: string, name: string, subject: string): void {
  openssl([
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subject],
    ...["-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.crt`)],
  ]);
}

/**
 * `<name>.key` and `<name>.crt` for `subject`, signed by the CA `<ca>.key`/`<ca>.crt`
 * in the same directory, with `extensions` (openssl extfile lines).
 */
export function issue(
  dir: string,
  ca: string,
  name: string,
  subject: string,
  extensions: string,
): void {
  const p = (f: string) => join(dir, f);
  openssl([
    ...["req", "-newkey", "rsa:2048", "-nodes", "-subj", subject],
    ...["-keyout", p(`${name}.key`), "-out", p(`${name}.csr`)],
  ]);
  writeFileSync(p(`${name}.ext`), extensions);
  openssl([
    ...["x509", "-req", "-in", p(`${name}.csr`), "-CA", p(`${ca}.crt`), "-CAkey", p(`${ca}.key`)],
    ...["-CAcreateserial", "-days", "2", "-extfile", p(`${name}.ext`), "-out", p(`${name}.crt`)],
  ]);
}

/** An RSA key pair, `<name>.key` and its public half `<name>.pub`. */
export function keyPair(dir: string, name: string): void {
  openssl(["genrsa", "-out", join(dir, `${name}.key`), "2048"]);
  openssl(["rsa", "-in", join(dir, `${name}.key`), "-pubout", "-out", join(dir, `${name}.pub`)]);
}

/** The command line, run as a user runs it: a child process, its output and its exit status. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSources } from '../fixtures/bundle.js';
import { csdl } from '../../examples/asset-service/src/model.js';
import { csdlXmlFromJson } from '../../src/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

// The source bundled once (test/fixtures/bundle.ts), one level below the root as dist/cli.js is (it reads ../package.json).
const bundleDir = mkdtempSync(join(root, '.test-bundle-'));
let bundled = '';
beforeAll(async () => {
  bundled = (await bundleSources({ cli: join(root, 'src/cli.ts') }, bundleDir)).cli as string;
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bundled, ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('odata-engine CLI', () => {
  it('parse "$filter=Price gt 5&$top=3" prints the AST as JSON', () => {
    const { status, stdout } = cli('parse', '$filter=Price gt 5&$top=3');
    expect(status).toBe(0);
    const ast = JSON.parse(stdout);
    expect(ast).toMatchObject({ kind: 'query', top: 3, filter: { kind: 'binary', operator: 'gt' } });
  });

  it('parse --print prints the canonical query string', () => {
    const { status, stdout } = cli('parse', "$filter=Name  EQ 'x' AND (Price lt 9223372036854775807)", '--print');
    expect(status).toBe(0);
    expect(stdout.trim()).toBe("$filter=Name eq 'x' and Price lt 9223372036854775807");
  });

  it('a bad query prints the message with a caret under the position and exits 2', () => {
    const { status, stderr } = cli('parse', '$filter=Name eq');
    expect(status).toBe(2);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toBe("error: Expected an expression after 'eq' at position 7 in $filter [unexpected_end]");
    expect(lines[1]).toBe('  $filter=Name eq');
    expect(lines[2]).toBe(' '.repeat('  $filter='.length + 7) + '^');
  });

  it('demo parses the sample queries', () => {
    const { status, stdout } = cli('demo');
    expect(status).toBe(0);
    expect(stdout).toContain("canonical: $filter=name eq 'Pump 7' and status ne 'retired'&$orderby=code desc&$top=10");
    expect(stdout).toContain('[duplicate_option]');
  });

  it('check --csdl --set underlines every problem against a CSDL model, or prints the SQL and MongoDB query', () => {
    const dir = mkdtempSync(join(tmpdir(), 'odata-cli-'));
    try {
      const file = join(dir, 'model.json');
      writeFileSync(file, JSON.stringify(csdl));
      const wrong = cli('check', "$filter=nam eq 'a' and cod eq 'b'", `--csdl=${file}`, '--set=assets');
      expect(wrong.status).toBe(2);
      const lines = wrong.stderr.trimEnd().split('\n');
      expect(lines[0]).toContain('[unknown_property]');
      expect(lines[2]).toBe(`  ${' '.repeat(8)}^~~`);
      expect(lines[5]).toBe(`  ${' '.repeat(23)}^~~`);
      const sql = cli('check', "$filter=name eq 'a'&$top=2", `--csdl=${file}`, '--set=assets', '--sql=sqlite', '--mongo');
      expect(sql.status).toBe(0);
      expect(sql.stdout).toContain('SELECT');
      expect(sql.stdout).toContain('params: ["a",2]');
      expect(sql.stdout).toContain('"kind": "find"');
      // What the requested backend cannot run is underlined too, before any SQL is printed.
      const regex = cli('check', "$filter=matchesPattern(name,'^a')", `--csdl=${file}`, '--set=assets', '--sql=sqlite');
      expect(regex.status).toBe(2);
      expect(regex.stderr).toContain('[unsupported_feature]');
      expect(regex.stderr).toContain(`  ${' '.repeat(8)}^~~~~~~~~~~~~~`);
      expect(cli('check', "$filter=matchesPattern(name,'^a')", `--csdl=${file}`, '--set=assets', '--sql=postgres').status).toBe(0);
      expect(cli('check', '$top=1', '--set=assets').status).toBe(1);
      const missing = cli('check', '$top=1', `--csdl=${join(dir, 'nope.json')}`, '--set=assets');
      expect(missing.status).toBe(1);
      expect(missing.stderr).toMatch(/^error: cannot read the CSDL file/);
      writeFileSync(join(dir, 'bad.json'), '{ not json');
      const bad = cli('check', '$top=1', `--csdl=${join(dir, 'bad.json')}`, '--set=assets');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('[invalid_model]');
      // --max-top: the server's own maximum, with ASP.NET Core OData's message.
      expect(cli('check', '$top=5000', `--csdl=${file}`, '--set=localities').stdout).toBe('valid\n');
      const over = cli('check', '$top=5000', `--csdl=${file}`, '--set=localities', '--max-top=1000');
      expect(over.status).toBe(2);
      expect(over.stderr).toContain("The limit of '1000' for Top query has been exceeded. The value from the incoming request is '5000'.");
      expect(cli('check', '$top=1000', `--csdl=${file}`, '--set=localities', '--max-top=1000').status).toBe(0);
      // The service's own metadata says the assets' maximum (ODataEngine.V1.MaxTop 1000): check refuses what the server refuses.
      const fromCsdl = cli('check', '$top=5000', `--csdl=${file}`, '--set=assets');
      expect(fromCsdl.status).toBe(2);
      expect(fromCsdl.stderr).toContain("The limit of '1000' for Top query has been exceeded. The value from the incoming request is '5000'.");
      expect(cli('check', '$top=1000', `--csdl=${file}`, '--set=assets').stdout).toBe('valid\n');
      // The lower of the CSDL's and --max-top's wins.
      expect(cli('check', '$top=600', `--csdl=${file}`, '--set=assets', '--max-top=500').stderr).toContain("The limit of '500' for Top query");
      expect(cli('check', '$top=1', `--csdl=${file}`, '--set=assets', '--max-top=ten').status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("check reads a CSDL XML file (a service's $metadata), told apart from CSDL JSON by its content", () => {
    const dir = mkdtempSync(join(tmpdir(), 'odata-cli-'));
    try {
      const file = join(dir, 'metadata.txt');
      writeFileSync(file, `\uFEFF${csdlXmlFromJson(csdl)}`);
      expect(cli('check', "$filter=name eq 'a'&$top=2", `--csdl=${file}`, '--set=assets')).toMatchObject({ status: 0, stdout: 'valid\n' });
      const wrong = cli('check', '$filter=nam eq 1&$top=5000', `--csdl=${file}`, '--set=assets');
      expect(wrong.status).toBe(2);
      expect(wrong.stderr).toContain('[unknown_property]');
      expect(wrong.stderr).toContain("The limit of '1000' for Top query has been exceeded.");
      writeFileSync(file, '<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"/>');
      const old = cli('check', '$top=1', `--csdl=${file}`, '--set=assets');
      expect(old.status).toBe(2);
      expect(old.stderr).toMatch(/^error: The document is OData v2\/v3 metadata .*\[invalid_model\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('help and version print to standard output and exit 0; no command or an unknown one is a usage error', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['help'], ['--help'], ['-h'], ['parse', '--help']]) {
      const { status, stdout, stderr } = cli(...args);
      expect({ args, status, stderr }).toEqual({ args, status: 0, stderr: '' });
      expect(stdout).toMatch(/^Usage:\n {2}odata-engine parse/);
    }
    for (const args of [['version'], ['--version'], ['-v']]) {
      const { status, stdout } = cli(...args);
      expect({ args, status, stdout }).toEqual({ args, status: 0, stdout: `${manifest.version}\n` });
    }
    for (const args of [[], ['frobnicate'], ['parse']]) {
      const { status, stdout, stderr } = cli(...args);
      expect({ args, status, stdout }).toEqual({ args, status: 1, stdout: '' });
      expect(stderr).toMatch(/^Usage:/);
    }
  });
});

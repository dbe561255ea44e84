// Reads the JUnit XML that `bun test --reporter=junit` writes into test-summary.mjs's counts and failures.
// Bun's report nests <testsuite> per file and per describe(); a failing node:test subtest is reported on its
// parent, whose <failure> text carries the subtest's assertion.

import { relative, resolve } from 'node:path';
import { ownFrame } from './test-summary.mjs';

const TAG = /<(\/?)(testsuite|testcase|failure|error|skipped)\b((?:[^>"]|"[^"]*")*?)(\/?)>/g;

/** @returns {{ passed: number, failed: number, skipped: number, failures: Array<{ file: string, name: string, message: string }> }} */
export function readBunJunit(xml, root) {
  const suites = [];
  const failures = [];
  let passed = 0;
  let skipped = 0;
  let testcase; // the open <testcase>: its attributes and what it held
  for (const match of xml.matchAll(TAG)) {
    const [, closing, tag, attributeText, selfClosing] = match;
    const attributes = parseAttributes(attributeText);
    if (tag === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(attributes);
    } else if (tag === 'testcase') {
      if (!closing) testcase = { attributes, failure: undefined, skipped: false };
      if (closing || selfClosing) {
        if (testcase.failure !== undefined) failures.push(describeFailure(suites, testcase, root));
        else if (testcase.skipped) skipped++;
        else passed++;
        testcase = undefined;
      }
    } else if ((tag === 'failure' || tag === 'error') && !closing && testcase) {
      const end = xml.indexOf(`</${tag}>`, match.index + match[0].length);
      const body = selfClosing || end < 0 ? '' : decode(xml.slice(match.index + match[0].length, end));
      testcase.failure = body || attributes.message || tag;
    } else if (tag === 'skipped' && !closing && testcase) {
      testcase.skipped = true;
    }
  }
  return { passed, failed: failures.length, skipped, failures };
}

function describeFailure(suites, testcase, root) {
  // The outermost suite is the file; the ones inside it are describe() blocks.
  const file = testcase.attributes.file ?? suites[0]?.file ?? suites[0]?.name ?? '(no file)';
  const path = suites
    .slice(1)
    .map((s) => s.name)
    .filter(Boolean);
  const name = [...path, testcase.attributes.name].join(' > ');
  return { file: relative(root, resolve(root, file)), name, message: testcase.failure, where: ownFrame(testcase.failure, root) };
}

function parseAttributes(text) {
  const attributes = {};
  for (const [, name, value] of text.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[name] = decode(value);
  return attributes;
}

function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, entity) => {
    if (entity[0] === '#') return String.fromCodePoint(entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[entity.toLowerCase()];
  });
}

/**
 * The errors bun reports outside any test (a file that throws while loading, an unhandled rejection between
 * tests): its text output has them, its JUnit report does not.
 */
export function readBunUnhandledErrors(log) {
  const errors = [];
  let file = '(unknown file)';
  const lines = log.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const header = /^(\S.*\.test\.[cm]?js):$/.exec(lines[i]);
    if (header) file = header[1];
    if (!/^# Unhandled error/.test(lines[i])) continue;
    const body = [];
    // The error sits between two dashed rules: skip the first, read to the second.
    for (i += 2; i < lines.length && !/^-{5,}$/.test(lines[i]); i++) body.push(lines[i]);
    const message = body.filter((line) => !/^\d+ \| |^\s*\^$/.test(line)).join('\n');
    errors.push({ file, name: '(outside any test: an unhandled error)', message });
  }
  return errors;
}

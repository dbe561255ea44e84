// A target's verdict in words, the same in the terminal, the details and the HTML report: a tie says which
// way it leans inside the noise, and a quick run says what it cannot judge rather than "missed".
import type { TargetResult } from '../results.js';

/** MET, MISSED, TIE (leans worse), CAN'T JUDGE, UNTRUSTED (a child of its scenario died) or NOT RUN. */
export function statusWord(t: TargetResult): string {
  if (t.untrusted) return 'UNTRUSTED';
  if (t.status === 'tie') return t.lean && t.lean !== 'even' ? `TIE (leans ${t.lean})` : 'TIE (even)';
  return { met: 'MET', missed: 'MISSED', 'cannot judge': "CAN'T JUDGE", 'not measured': 'NOT RUN' }[t.status];
}

/**
 * The count of each verdict, in one sentence: "12 met, 5 tied (3 leaning worse), 2 missed, 6 this quick run
 * cannot judge, 3 not run". Verdicts with no target are left out.
 */
export function targetCounts(targets: readonly TargetResult[]): string {
  const count = (status: TargetResult['status']) => targets.filter((t) => t.status === status && !t.untrusted).length;
  const untrusted = targets.filter((t) => t.untrusted).length;
  const worse = targets.filter((t) => t.status === 'tie' && t.lean === 'worse').length;
  const parts = [
    `${count('met')} met`,
    count('tie') > 0 ? `${count('tie')} tied${worse > 0 ? ` (${worse} leaning worse)` : ''}` : '',
    `${count('missed')} missed`,
    count('cannot judge') > 0 ? `${count('cannot judge')} this quick run cannot judge` : '',
    untrusted > 0 ? `${untrusted} not judged (a child process died)` : '',
    count('not measured') > 0 ? `${count('not measured')} not run` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

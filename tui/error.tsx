/**
 * What the TUI shows when the kernel cannot be opened (invalid PTX, bad launch): the located
 * message, full screen, until q. No stack traces: the message is already user-readable.
 */
import React, { useEffect, useState } from 'react';
import { Box, useApp, useInput, useStdout } from 'ink';
import { lines, sanitize } from './text.js';
import { Row, seg } from './ui.js';

export function ErrorScreen({ title, error }: { title: string; error: string }): React.JSX.Element {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  const [top, setTop] = useState(0);
  useEffect(() => {
    const onResize = (): void => setSize({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => { stdout.off('resize', onResize); };
  }, [stdout]);
  const body = lines(error).map((l) => sanitize(l));
  const height = Math.max(1, size.rows - 1);
  const bodyH = Math.max(1, height - 3);
  useInput((input, key) => {
    if (input === 'q' || key.escape || key.return || (key.ctrl && input === 'c')) exit(1);
    else if (key.downArrow || key.pageDown) setTop((t) => Math.min(Math.max(0, body.length - bodyH), t + (key.pageDown ? bodyH : 1)));
    else if (key.upArrow || key.pageUp) setTop((t) => Math.max(0, t - (key.pageUp ? bodyH : 1)));
  });
  const w = size.cols;
  const rows: React.JSX.Element[] = [
    <Row key="h" line={[seg(' ptxdbg ', { bold: true, color: 'black', bg: 'red' }), seg(` cannot open ${title}`, { bold: true })]} width={w} />,
    <Row key="s" line={[]} width={w} />,
  ];
  for (let i = 0; i < bodyH; i++) {
    const l = body[top + i];
    // The first line of a diagnostic is `file:line:col: error: ...`; the caret line follows.
    rows.push(<Row key={i} line={l === undefined ? [] : [seg(' ' + l, /error|^\S+:\d+/.test(l) ? { color: 'red', bold: i + top === 0 } : undefined)]} width={w} />);
  }
  rows.push(<Row key="f" line={[seg(' q quit' + (body.length > bodyH ? '  ↑↓ scroll' : ''), { dim: true })]} width={w} />);
  return <Box flexDirection="column" width={w} height={height}>{rows}</Box>;
}

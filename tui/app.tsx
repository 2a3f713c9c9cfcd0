/**
 * The root component: header, the panes in their slots, timeline, message/command line and key
 * hints, plus the help overlay. It only reads the Controller; keys go straight to it.
 */
import React, { useEffect, useSyncExternalStore } from 'react';
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { comparePositions } from '#engine';
import type { Controller } from './controller.js';
import { HINTS } from './keys.js';
import { type Column, type Layout, PANE_TITLES, type PaneId, type Slot, tabLabels } from './layout.js';
import { CodePane } from './panes/code.js';
import { HelpOverlay } from './panes/help.js';
import { LanesPane } from './panes/lanes.js';
import { MemoryPane } from './panes/memory.js';
import { RegistersPane } from './panes/registers.js';
import { TextPane } from './panes/text.js';
import { bucketMarks, timelineCells, timelineLine } from './panes/timeline.js';
import { VariablesPane } from './panes/variables.js';
import { hostNote } from './variables.js';
import { WarpsPane } from './panes/warps.js';
import { printName } from '#engine';
import { baseName, clip, dim3 } from './text.js';
import { type Line, Row, scrollTo, type Seg, seg } from './ui.js';

/** Title of a slot: the pane name, or tabs when several panes share the slot. */
function slotTitle(slot: Slot, shown: PaneId, focused: boolean): Line {
  if (slot.panes.length === 1) return [seg(` ${PANE_TITLES[shown]}`)];
  const labels = tabLabels(slot);
  const out: Seg[] = [seg(' ')];
  for (const [i, p] of slot.panes.entries()) {
    const label = labels[i]!;
    out.push(p === shown ? seg(label, { underline: true, bold: true, ...(focused ? {} : { color: 'whiteBright' }) }) : seg(label, { dim: !focused }));
    out.push(seg(' '));
  }
  return out;
}

function PaneView({ ctl, pane, slot }: { ctl: Controller; pane: PaneId; slot: Slot }): React.JSX.Element {
  const focused = ctl.focus === pane;
  const title = slotTitle(slot, pane, focused);
  const { w, h } = slot;
  const m = ctl.model;
  switch (pane) {
    case 'source': return <CodePane view={ctl.sourceView()} state={ctl.src} left={ctl.left.source} width={w} height={h} focused={focused} />;
    case 'ptx': return <CodePane view={ctl.ptxView()} state={ctl.ptx} left={ctl.left.ptx} width={w} height={h} focused={focused} />;
    case 'variables': {
      const rows = ctl.varRows();
      const cur = ctl.varCursor(rows);
      return <VariablesPane rows={rows} cursor={cur} top={scrollTo(ctl.vars.top, cur, h - 1, rows.length)} width={w} height={h} focused={focused} title={title} />;
    }
    case 'registers': {
      const host = m.engine.hostStop();
      return <RegistersPane regs={m.registers()} top={ctl.scroll.registers} width={w} height={h} focused={focused} title={title} none={host ? hostNote(host) : undefined} />;
    }
    case 'memory': return <MemoryPane model={m} st={ctl.memory} width={w} height={h} focused={focused} title={title} />;
    case 'warps': {
      const wh = m.where();
      const host = m.engine.hostStop();
      if (host) return <WarpsPane warps={[]} focus={{ block: wh.block, warp: wh.warp, lane: wh.lane }} cursor={undefined} top={0} width={w} height={h} focused={focused} title={title} none={hostNote(host)} />;
      return <WarpsPane warps={m.warps()} focus={{ block: wh.block, warp: wh.warp, lane: wh.lane }} cursor={focused ? ctl.warpCursor() : undefined} top={ctl.warpTop()} width={w} height={h} focused={focused} title={title} />;
    }
    case 'lanes': {
      const wh = m.where();
      const host = m.engine.hostStop();
      if (host) return <LanesPane st={ctl.lanes} data={undefined} block="" focusLane={undefined} width={w} height={h} focused={focused} title={title} none={hostNote(host)} />;
      return <LanesPane st={{ ...ctl.lanes, top: ctl.lanesTop() }} data={ctl.laneData()} block={wh.block.join(',')} focusLane={wh.lane} width={w} height={h} focused={focused} title={title} />;
    }
    case 'races': return <TextPane wrapped={ctl.wrapped('races')} top={ctl.racesTop()} cursor={ctl.races.cursor} width={w} height={h} focused={focused} title={title} empty="no races" />;
    case 'output': return <TextPane wrapped={ctl.wrapped('output')} top={ctl.scroll.output} cursor={undefined} width={w} height={h} focused={focused} title={title} empty="no printf output yet" />;
    case 'console': return <TextPane wrapped={ctl.wrapped('console')} top={ctl.scroll.console} cursor={undefined} width={w} height={h} focused={focused} title={title} empty="commands you type with : and their replies" />;
  }
}

function ColumnView({ ctl, col, height }: { ctl: Controller; col: Column; height: number }): React.JSX.Element {
  return (
    <Box flexDirection="column" width={col.w} height={height} flexShrink={0}>
      {col.slots.map((s) => <PaneView key={s.id} ctl={ctl} pane={ctl.visibleIn(s)} slot={s} />)}
    </Box>
  );
}

function Gutter({ height }: { height: number }): React.JSX.Element {
  return (
    <Box flexDirection="column" width={1} height={height} flexShrink={0}>
      <Text dimColor>{Array.from({ length: height }, () => '│').join('\n')}</Text>
    </Box>
  );
}

/**
 * The header at a host call: no device thread runs there, so it names the call and where it sits
 * (`host cudaMemcpy offbyone.cu:39 in main  before launch 1/3`), not the launch's thread.
 */
function hostHeader(ctl: Controller, width: number, title: string, host: string): Line {
  const h = ctl.model.engine.hostStop()!;
  const launch = ctl.model.launchOf();
  const count = launch?.count ?? ctl.model.launches().length;
  const where = h.position.launch > count ? `after launch ${count}, the last` : `before launch ${h.position.launch}/${count}`;
  const segs: Seg[] = [
    seg(' ptxdbg ', { bold: true, color: 'black', bg: 'cyan' }),
    seg(` host ${host}${h.function ? ` in ${h.function}` : ''} `, { bold: true, color: 'yellow' }),
    seg(` ${where}`, { dim: true }),
  ];
  const used = segs.reduce((n, x) => n + x.text.length, 0);
  if (width - used > 12) segs.push(seg(`  ${clip(title, width - used - 3)}`, { dim: true }));
  return segs;
}

/** A function as gdb's frames name it (`scale<float, 4>`, `ops::times<float, 4>`), for the header. */
export function shortName(mangled: string): string {
  return printName(mangled);
}

/** The host call the engine stands at, as `cudaMemcpy offbyone.cu:39` (the site without its function); undefined in a launch. */
function hostCall(e: Controller['engine']): string | undefined {
  const h = e.hostStop();
  if (!h) return undefined;
  const at = h.file !== undefined && h.sourceLine !== undefined ? `${h.file}:${h.sourceLine}` : h.site;
  return at ? `${h.what} ${at}` : h.what;
}

function header(ctl: Controller, width: number, title: string): Line {
  const m = ctl.model;
  const host = hostCall(m.engine);
  if (host !== undefined) return hostHeader(ctl, width, title, host);
  const w = m.where();
  const stateStyle = w.state === 'active' ? { color: 'green' } : w.state === 'exited' ? { color: 'red' } : { color: 'yellow' };
  const gone = w.state === 'exited' || w.state === 'retired';
  const loc = w.file ? `${baseName(w.file)}:${w.line}` : gone ? '' : `pc ${w.pc}`;
  const launch = m.launchOf();
  const segs: Seg[] = [
    seg(' ptxdbg ', { bold: true, color: 'black', bg: 'cyan' }),
    // a whole program: which launch this is (`launch 2/3 scale<<<(2,1,1),(4,1,1)>>>`)
    seg(launch ? ` launch ${launch.index}/${launch.count}${launch.info ? ` ${launch.info.kernel}<<<(${launch.info.grid.join(',')}),(${launch.info.block.join(',')})>>>` : ''} ` : '', { bold: true, color: 'magenta' }),
    // a write forked a what-if timeline (issue #27): say so, it is not the recording
    ...(m.engine.timeline().id ? [seg(` ${m.engine.timeline().name} `, { bold: true, color: 'black', bg: 'yellow' })] : []),
    seg(loc ? ` ${loc}` : '', { bold: true }),
    seg(` ${shortName(w.function)}`, { dim: true }),
    seg(`  block ${dim3(w.block)} thread ${dim3(w.thread)}`, { color: 'cyan' }),
    seg(` w${w.warp}/l${w.lane} `, { dim: true }),
    seg(w.state, stateStyle),
  ];
  const used = segs.reduce((n, x) => n + x.text.length, 0);
  if (width - used > 12) segs.push(seg(`  ${clip(title, width - used - 3)}`, { dim: true }));
  return segs;
}

function messageLine(ctl: Controller, width: number): Line {
  if (ctl.mode !== 'normal') {
    const prompt = ctl.mode === 'command' ? ':' : 'memory address> ';
    const s = ctl.line.text;
    const c = ctl.line.cursor;
    // Scroll the input so the cursor stays visible.
    const room = Math.max(4, width - prompt.length - 1);
    const start = Math.max(0, c - room + 1);
    const vis = s.slice(start, start + room);
    const cc = c - start;
    return [seg(prompt, { color: 'cyan', bold: true }), seg(vis.slice(0, cc)), seg(vis[cc] ?? ' ', { inverse: true }), seg(vis.slice(cc + 1))];
  }
  const msg = ctl.message;
  const style = msg.tone === 'error' ? { color: 'red' } : msg.tone === 'stop' ? { color: 'yellow' } : { dim: true };
  return [seg(' ' + msg.text, style)];
}

function hintLine(width: number): Line {
  let text = '';
  for (const h of HINTS) {
    const next = text ? `${text}  ${h}` : ` ${h}`;
    if (next.length > width) break;
    text = next;
  }
  return [seg(text, { dim: true })];
}

function TooSmall({ layout }: { layout: Layout }): React.JSX.Element {
  return (
    <Box flexDirection="column" width={layout.cols} height={layout.height}>
      <Row line={[seg(`Terminal too small (${layout.cols}x${layout.height + 1}); need 40x12. q quits.`, { color: 'yellow' })]} width={layout.cols} />
    </Box>
  );
}

export function App({ ctl, title }: { ctl: Controller; title: string }): React.JSX.Element {
  useSyncExternalStore(ctl.subscribe, ctl.getVersion);
  const { exit } = useApp();
  const { stdout } = useStdout();
  useEffect(() => {
    ctl.onExit = (code) => exit(code);
  }, [ctl, exit]);
  useEffect(() => {
    const onResize = (): void => ctl.resize(stdout.columns, stdout.rows);
    stdout.on('resize', onResize);
    return () => { stdout.off('resize', onResize); };
  }, [ctl, stdout]);
  useInput((input, key) => ctl.onKey(input, key));

  const layout = ctl.layout;
  const width = layout.cols;
  if (layout.tooSmall) return <TooSmall layout={layout} />;
  const main = layout.mainHeight;
  const s = ctl.engine;
  const pos = s.position().step;
  // The race checker adds its marks to the timeline when it first runs (for the Races pane).
  if (ctl.isVisible('races')) ctl.raceRows();
  const launch = ctl.model.launchOf();
  const host = hostCall(s);
  const cells = timelineCells(width, pos, s.total, launch, host);
  const buckets = ctl.model.cached(`buckets:${cells}`, () => bucketMarks(ctl.model.marks(), s.total, cells));
  const fault = s.fault;
  const atFault = fault !== undefined && comparePositions(s.position(), fault.at) >= 0;
  return (
    <Box flexDirection="column" width={width} height={layout.height}>
      <Row line={header(ctl, width, title)} width={width} />
      <Box flexDirection="row" width={width} height={main}>
        {layout.columns.flatMap((c, i) => [
          ...(i > 0 ? [<Gutter key={`g${i}`} height={main} />] : []),
          <ColumnView key={`c${i}`} ctl={ctl} col={c} height={main} />,
        ])}
        {ctl.help ? <HelpOverlay width={width} height={main} top={ctl.helpTop} /> : null}
      </Box>
      <Row line={timelineLine(pos, s.total, buckets, atFault, launch, host)} width={width} />
      <Row line={messageLine(ctl, width)} width={width} />
      <Row line={hintLine(width)} width={width} />
    </Box>
  );
}



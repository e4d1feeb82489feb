// The frame around every screen: who and where (profile, team, daemon URL, connection), a title,
// the body, one message line and the key hints. With ? the body gives way to the screen's help.
import { Box } from 'ink';
import { Text } from './text.js';
import { type ReactNode } from 'react';
import { type Connection, type Flash, useAppEnv, useBodyHeight, useColor, usePlace } from './context.js';
import { textWidth, truncate } from './format.js';

export interface HelpEntry {
  keys: string;
  what: string;
}

const EVERYWHERE: readonly HelpEntry[] = [
  { keys: '↑ ↓  j k', what: 'move' },
  { keys: 'enter', what: 'open / confirm' },
  { keys: 'esc', what: 'back' },
  { keys: 'tab', what: 'next field (shift+tab: previous)' },
  { keys: 'q', what: 'quit (ctrl+c quits from anywhere)' },
  { keys: '?', what: 'this help (any key closes it)' },
];

export interface FrameProps {
  /** breadcrumb: ['Automations', 'Nightly'] */
  title: readonly string[];
  /** right side of the title line: counts, last refresh, a spinner */
  right?: string;
  /** one line of key hints */
  hints: string;
  message?: Flash | null;
  /** a yes/no question waiting for y */
  confirm?: string | null;
  help: readonly HelpEntry[];
  children?: ReactNode;
}

const CONNECTION_BADGE: Record<Connection, { text: string; color: string }> = {
  unknown: { text: '○ connecting', color: 'yellow' },
  ok: { text: '● connected', color: 'green' },
  lost: { text: '✗ connection lost · retrying', color: 'red' },
  refused: { text: '✗ key refused', color: 'red' },
};

export function Frame(props: FrameProps) {
  const env = useAppEnv();
  const place = usePlace();
  const color = useColor();
  const bodyHeight = useBodyHeight();
  const width = env.columns;

  const conn = CONNECTION_BADGE[env.connection];
  const who = truncate(`svc · profile ${env.profile} · team ${env.team} · ${env.url}`, Math.max(10, width - conn.text.length - 2));

  // The right side (a count, the last refresh) keeps its room; a long name in the title is cut,
  // measured as it prints (inert), so the line never wraps.
  const rightWidth = props.right ? textWidth(truncate(props.right, width)) : 0;
  const title = truncate(props.title.join(' › '), Math.max(10, width - (rightWidth > 0 ? rightWidth + 2 : 0)));
  const right = props.right ? truncate(props.right, Math.max(0, width - textWidth(title) - 2)) : '';

  // A question keeps its "(y/N)" however narrow the terminal: the question is what gets cut.
  const message: Flash | null = props.confirm
    ? { kind: 'info', text: `${truncate(props.confirm, width - 2 - ' (y/N)'.length)} (y/N)` }
    : env.notice !== null
      ? { kind: 'info', text: env.notice }
      : (props.message ?? env.flash);
  const messageColor = message?.kind === 'error' ? 'red' : message?.kind === 'ok' ? 'green' : 'yellow';
  const messagePrefix = message?.kind === 'error' ? '✗ ' : message?.kind === 'ok' ? '✓ ' : props.confirm ? '? ' : '';

  const showHelp = place.isTop && place.helpOpen;

  return (
    <Box flexDirection="column" width={width}>
      <Box justifyContent="space-between" width={width}>
        <Text dimColor wrap="truncate">
          {who}
        </Text>
        <Text color={color(conn.color)}>{conn.text}</Text>
      </Box>
      <Box justifyContent="space-between" width={width}>
        <Text bold color={color('cyan')} wrap="truncate">
          {title}
        </Text>
        {right ? <Text dimColor>{right}</Text> : null}
      </Box>
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        {showHelp ? <HelpView entries={props.help} height={bodyHeight} /> : props.children}
      </Box>
      <Text color={color(messageColor)} wrap="truncate">
        {message ? truncate(messagePrefix + message.text, width) : ' '}
      </Text>
      <Text dimColor wrap="truncate">
        {truncate(showHelp ? 'any key: close help' : `${props.hints} · ? help`, width)}
      </Text>
    </Box>
  );
}

function HelpView({ entries, height }: { entries: readonly HelpEntry[]; height: number }) {
  const color = useColor();
  const rows: ReactNode[] = [];
  const all = [...entries.map((e) => ({ ...e, section: 'This screen' })), ...EVERYWHERE.map((e) => ({ ...e, section: 'Everywhere' }))];
  const keyWidth = Math.max(...all.map((e) => e.keys.length)) + 2;
  let section = '';
  for (const [i, e] of all.entries()) {
    if (e.section !== section) {
      section = e.section;
      rows.push(
        <Text key={`s${i}`} bold color={color('cyan')}>
          {section}
        </Text>,
      );
    }
    rows.push(
      <Text key={i} wrap="truncate">
        {'  '}
        <Text bold>{e.keys.padEnd(keyWidth)}</Text>
        {e.what}
      </Text>,
    );
  }
  return <Box flexDirection="column">{rows.slice(0, height)}</Box>;
}

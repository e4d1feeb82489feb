// The home screen: the areas, and the profile, daemon and team the screens work with.
import { Box } from 'ink';
import { Text } from './text.js';
import { useAppEnv, useColor, useKeysActive } from './context.js';
import { Frame, type HelpEntry } from './frame.js';
import { useListCursor, usePolling, useScreenKeys } from './hooks.js';
import { AREAS } from './routes.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'enter', what: 'open the selected area' },
  { keys: `1-${AREAS.length}`, what: 'open an area by its number' },
];

export function HomeScreen() {
  const env = useAppEnv();
  const color = useColor();
  const active = useKeysActive();
  const [index, onListKey, , current] = useListCursor(AREAS.length);
  const health = usePolling(() => env.api.health(), { intervalMs: 0, active });
  // /health takes no key: this one does, so a refused key shows here, not only once an area opens.
  const keyCheck = usePolling(() => env.api.listEnvironments(), { intervalMs: 0, active });

  useScreenKeys((input, key) => {
    if (onListKey(input, key)) return true;
    if (key.return) {
      env.nav.push(AREAS[current()].route);
      return true;
    }
    const n = Number(input);
    if (Number.isInteger(n) && n >= 1 && n <= AREAS.length) {
      env.nav.push(AREAS[n - 1].route);
      return true;
    }
    return false;
  });

  const daemon = health.data
    ? { text: `svc ${health.data.version} · ${health.data.status}`, color: 'green' }
    : health.error
      ? { text: health.error.text, color: 'red' }
      : { text: 'checking…', color: 'yellow' };
  const key = keyCheck.data
    ? { text: `works for team ${env.team}`, color: 'green' }
    : keyCheck.error && !keyCheck.error.connection
      ? { text: keyCheck.error.text, color: 'red' }
      : { text: 'checking…', color: 'yellow' };
  const labelWidth = Math.max(...AREAS.map((a) => a.label.length)) + 3;

  return (
    <Frame title={['Home']} hints={`↑↓ move · enter open · 1-${AREAS.length} jump · q quit`} help={HELP}>
      <Text>
        <Text dimColor>{'Profile  '}</Text>
        {env.profile}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Daemon   '}</Text>
        {env.url}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Status   '}</Text>
        <Text color={color(daemon.color)}>{daemon.text}</Text>
      </Text>
      <Text>
        <Text dimColor>{'Team     '}</Text>
        {env.team}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Key      '}</Text>
        <Text color={color(key.color)}>{key.text}</Text>
      </Text>
      <Text> </Text>
      <Box flexDirection="column">
        {AREAS.map((a, i) => (
          <Text key={a.label} inverse={i === index} wrap="truncate">
            {i === index ? '› ' : '  '}
            <Text bold>{`${i + 1} ${a.label}`.padEnd(labelWidth)}</Text>
            <Text dimColor={i !== index}>{a.blurb}</Text>
          </Text>
        ))}
      </Box>
    </Frame>
  );
}

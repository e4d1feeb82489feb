// Skills: scan a GitHub repository at a ref for SKILL.md files; list the skills found (name,
// path, size, description) and the files skipped, each with its reason.
import { Box } from 'ink';
import { Text } from './text.js';
import { type ReactNode, useState } from 'react';
import { type ScanResultDto } from './api.js';
import { type Flash, useAppEnv, useBodyHeight, useColor } from './context.js';
import { FormView } from './fields.js';
import { type FieldSpec, useForm } from './form.js';
import { cell, formatSize, plural, wrap } from './format.js';
import { Frame, type HelpEntry } from './frame.js';
import { useAction, useListCursor } from './hooks.js';
import { Spinner } from './spinner.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'tab', what: 'next field; after a scan, the results' },
  { keys: 'enter', what: 'on Ref or Scan: scan' },
  { keys: 'ctrl+s', what: 'scan' },
  { keys: '↑ ↓  j k', what: 'on the results: scroll' },
  { keys: 'Repository', what: 'https://github.com/OWNER/NAME' },
  { keys: 'Ref', what: 'a branch or tag' },
];

interface Line {
  text: string;
  bold?: boolean;
  color?: string;
}

/**
 * The result as lines to scroll through: each skill's name, size and path on one line and its
 * description under it; each skipped file's path with its reason under it. Two lines per entry
 * keep paths and reasons whole at 80 columns.
 */
export function resultLines(r: ScanResultDto, width: number): Line[] {
  const lines: Line[] = [];
  const name = Math.min(24, Math.max(...r.skills.map((s) => s.name.length), 4));
  lines.push({ text: `SKILLS (${r.skills.length})`, bold: true });
  if (r.skills.length === 0) lines.push({ text: '  no valid SKILL.md found', color: 'gray' });
  else lines.push({ text: `  ${cell('NAME', name)}  ${'SIZE'.padStart(8)}  PATH / DESCRIPTION`, bold: true });
  for (const s of r.skills) {
    lines.push({ text: `  ${cell(s.name, name)}  ${formatSize(s.sizeBytes).padStart(8)}  ${s.path}`, color: 'green' });
    for (const part of wrap(s.description, width - 6)) lines.push({ text: `      ${part}` });
  }
  lines.push({ text: `SKIPPED (${r.skipped.length})`, bold: true });
  if (r.skipped.length === 0) lines.push({ text: '  none', color: 'gray' });
  for (const s of r.skipped) {
    lines.push({ text: `  ${s.path}`, color: 'yellow' });
    for (const part of wrap(s.reason, width - 6)) lines.push({ text: `      ${part}` });
  }
  return lines;
}

export function SkillsScreen() {
  const env = useAppEnv();
  const color = useColor();
  const height = useBodyHeight();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);
  const [result, setResult] = useState<ScanResultDto | null>(null);
  const lines = result ? resultLines(result, env.columns) : [];
  const windowHeight = Math.max(1, height - 6);
  const [top, onScroll] = useListCursor(Math.max(1, lines.length - windowHeight + 1), windowHeight);

  const scan = async () => {
    const v = form.current();
    if (v.repository.trim() === '' || v.ref.trim() === '') {
      setMessage({ kind: 'error', text: 'Repository and ref are both needed' });
      return;
    }
    setMessage(null);
    const r = await action.run('scanning', () => env.api.scanSkills(v.repository.trim(), v.ref.trim()));
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    setResult(r.value);
    form.focusField('results');
  };

  const fields: FieldSpec[] = [
    { id: 'repository', kind: 'text', label: 'Repository', placeholder: 'e.g. https://github.com/OWNER/NAME' },
    { id: 'ref', kind: 'text', label: 'Ref', onEnter: () => void scan() },
    { id: 'scan', kind: 'button', label: 'Scan', onPress: () => void scan() },
    ...(result ? [{ id: 'results', kind: 'view', label: 'Results', onKey: onScroll } as const] : []),
  ];
  const form = useForm({ fields, initial: { repository: '', ref: 'main' }, onSubmit: () => void scan() });

  let body: ReactNode = <Text dimColor>Results appear here: skills found and files skipped, with reasons.</Text>;
  if (action.busy) {
    const v = form.values;
    body = <Spinner label={`Scanning ${v.repository.trim()} at ${v.ref.trim()}…`} />;
  } else if (result) {
    const focused = form.focus === 'results';
    body = (
      <>
        <Text wrap="truncate">
          <Text bold>{`${result.repository} @ ${result.ref}`}</Text>
          {` (${result.commit.slice(0, 7)}) · ${plural(result.skills.length, 'skill')} · ${result.skipped.length} skipped`}
          {lines.length > windowHeight ? <Text dimColor>{focused ? '  j/k scroll' : '  tab: scroll'}</Text> : null}
        </Text>
        {lines.slice(top, top + windowHeight).map((l, i) => (
          <Text key={top + i} bold={l.bold} color={l.color ? color(l.color) : undefined} wrap="truncate">
            {l.text}
          </Text>
        ))}
      </>
    );
  }

  return (
    <Frame title={['Skills']} hints="tab next field · enter scan · j/k scroll results · esc back" help={HELP} message={message}>
      <FormView form={form} fields={fields} width={env.columns} />
      <Text> </Text>
      <Box flexDirection="column">{body}</Box>
    </Frame>
  );
}

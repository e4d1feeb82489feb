// How a form's fields look: a label column (› on the focused one), text with an inverse cursor,
// choices as radio buttons, buttons in brackets. Everything reads without colour.
import { Box } from 'ink';
import { Text } from './text.js';
import { type ReactNode } from 'react';
import { charactersOf } from '../terminal-text.js';
import { type FieldSpec, type Form } from './form.js';
import { type EditState } from './text-edit.js';

interface TextViewProps {
  edit: EditState;
  focused: boolean;
  width: number;
  mask?: boolean;
  placeholder?: string;
}

/**
 * One line of a text field, scrolled sideways to keep the cursor in view. Counted in terminal
 * columns and whole characters, so CJK and emoji neither overflow the line nor split in two.
 */
function LineView({ text, cursor, focused, width }: { text: string; cursor: number | null; focused: boolean; width: number }) {
  const avail = Math.max(4, width - 1);
  const segs = [...charactersOf(text)].map((g) => ({ index: g.index, text: g.segment, width: g.width }));
  let at = cursor === null ? 0 : segs.findIndex((g) => g.index >= cursor);
  if (at === -1) at = segs.length;
  let first = at;
  for (let used = at < segs.length ? segs[at].width : 1; first > 0 && used + segs[first - 1].width <= avail; first--) used += segs[first - 1].width;
  if (cursor === null) first = 0;
  let last = first;
  for (let used = 0; last < segs.length && used + segs[last].width <= avail; last++) used += segs[last].width;
  const join = (from: number, to: number) => segs.slice(from, to).map((g) => g.text).join('');
  if (cursor === null || !focused) return <Text wrap="truncate">{join(first, last)}</Text>;
  return (
    <Text wrap="truncate">
      {join(first, at)}
      <Text inverse>{segs[at]?.text ?? ' '}</Text>
      {join(at + 1, Math.max(last, at + 1))}
    </Text>
  );
}

function SingleLine({ edit, focused, width, mask, placeholder }: TextViewProps) {
  const text = mask ? '•'.repeat(edit.value.length) : edit.value;
  if (text === '' && placeholder) {
    return (
      <Text wrap="truncate">
        {focused ? <Text inverse> </Text> : null}
        <Text dimColor>{placeholder}</Text>
      </Text>
    );
  }
  return <LineView text={text} cursor={edit.cursor} focused={focused} width={width} />;
}

function MultiLine({ edit, focused, width, rows, placeholder }: TextViewProps & { rows: number }) {
  const lines = edit.value.split('\n');
  let line = 0;
  let col = edit.cursor;
  while (line < lines.length - 1 && col > lines[line].length) {
    col -= lines[line].length + 1;
    line += 1;
  }
  const start = Math.max(0, Math.min(line - rows + 1, lines.length - rows));
  const shown: ReactNode[] = [];
  for (let i = start; i < start + rows; i++) {
    if (i >= lines.length) {
      shown.push(<Text key={i}> </Text>);
      continue;
    }
    if (edit.value === '' && i === 0 && placeholder) {
      shown.push(
        <Text key={i} wrap="truncate">
          {focused ? <Text inverse> </Text> : null}
          <Text dimColor>{placeholder}</Text>
        </Text>,
      );
      continue;
    }
    shown.push(<LineView key={i} text={lines[i]} cursor={i === line ? col : null} focused={focused} width={width} />);
  }
  const more = lines.length > rows ? ` (${lines.length} lines)` : '';
  return (
    <Box flexDirection="column">
      {shown}
      {more && focused ? <Text dimColor>{more}</Text> : null}
    </Box>
  );
}

export interface FormViewProps {
  form: Form;
  fields: readonly FieldSpec[];
  width: number;
  labelWidth?: number;
}

/** Every field but `view` ones (the screen draws those), consecutive buttons on one line. */
export function FormView({ form, fields, width, labelWidth: lw }: FormViewProps) {
  const labelWidth = lw ?? Math.max(...fields.filter((f) => f.kind !== 'button' && f.kind !== 'view').map((f) => f.label.length), 4) + 3;
  const valueWidth = Math.max(8, width - labelWidth);
  const out: ReactNode[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    const focused = form.focus === f.id;
    if (f.kind === 'view') continue;
    if (f.kind === 'button') {
      const buttons: FieldSpec[] = [];
      while (i < fields.length && fields[i].kind === 'button') buttons.push(fields[i++]);
      i--;
      out.push(
        <Text key={f.id}>
          {' '.repeat(Math.max(0, labelWidth - 2))}
          {buttons.map((b) => (
            <Text key={b.id}>
              {form.focus === b.id ? '› ' : '  '}
              <Text inverse={form.focus === b.id} bold={form.focus === b.id}>{`[ ${b.label} ]`}</Text>
            </Text>
          ))}
        </Text>,
      );
      continue;
    }
    const label = (
      <Text bold={focused}>{`${focused ? '› ' : '  '}${f.label}`.padEnd(labelWidth)}</Text>
    );
    if (f.kind === 'choice') {
      const value = form.values[f.id] ?? f.options[0];
      if (f.compact) {
        out.push(
          <Text key={f.id} wrap="truncate">
            {label}
            <Text bold inverse={focused}>{`‹ ${value} ›`}</Text>
            {focused ? <Text dimColor>{`   ${f.options.indexOf(value) + 1}/${f.options.length} · ← → to change`}</Text> : null}
          </Text>,
        );
        continue;
      }
      out.push(
        <Text key={f.id} wrap="truncate">
          {label}
          {f.options.map((o, n) => (
            <Text key={o}>
              {n > 0 ? '   ' : ''}
              <Text bold={o === value} inverse={focused && o === value}>{`${o === value ? '(•)' : '( )'} ${o}`}</Text>
            </Text>
          ))}
          {focused ? <Text dimColor>{'   ← → to change'}</Text> : null}
        </Text>,
      );
      continue;
    }
    const edit = form.edits[f.id] ?? { value: '', cursor: 0 };
    out.push(
      <Box key={f.id}>
        {label}
        {f.multiline ? (
          <MultiLine edit={edit} focused={focused} width={valueWidth} rows={f.rows ?? 3} placeholder={f.placeholder} />
        ) : (
          <SingleLine edit={edit} focused={focused} width={valueWidth} mask={f.mask} placeholder={f.placeholder} />
        )}
      </Box>,
    );
  }
  return <Box flexDirection="column">{out}</Box>;
}

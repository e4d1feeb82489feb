// A list of rows in columns, the selected one marked (› and inverse, so it shows without colour),
// scrolled to keep the selection in view.
import { Box } from 'ink';
import { Text } from './text.js';
import { Fragment } from 'react';
import { useAppEnv, useColor } from './context.js';
import { padStartToWidth } from '../terminal-text.js';
import { cell } from './format.js';

export interface ColumnSpec<T> {
  header: string;
  /** fixed width; columns without one share what is left */
  width?: number;
  value: (row: T) => string;
  align?: 'right';
  color?: (row: T) => string | undefined;
}

export interface TableProps<T> {
  columns: readonly ColumnSpec<T>[];
  rows: readonly T[];
  selected: number;
  /** lines for header and rows */
  height: number;
  rowKey: (row: T) => string;
  /** shown instead of rows when there are none */
  empty?: string;
  /** the selection is drawn only when the table has focus */
  focused?: boolean;
  width?: number;
}

/** The first row of the window that keeps `selected` in view, roughly centred. */
export function windowStart(selected: number, count: number, visible: number): number {
  if (count <= visible) return 0;
  return Math.max(0, Math.min(selected - Math.floor(visible / 2), count - visible));
}

/** Narrowest a flexible column is made to leave room for the position. */
const MIN_FLEXIBLE = 12;

export function columnWidths(widths: readonly (number | undefined)[], total: number): number[] {
  const gaps = widths.length - 1;
  const fixed = widths.reduce<number>((sum, w) => sum + (w ?? 0), 0);
  const flexible = widths.filter((w) => w === undefined).length;
  const share = flexible ? Math.max(6, Math.floor((total - fixed - gaps) / flexible)) : 0;
  return widths.map((w) => w ?? share);
}

export function Table<T>(props: TableProps<T>) {
  const env = useAppEnv();
  const color = useColor();
  const width = props.width ?? env.columns;
  const focused = props.focused ?? true;
  const visible = Math.max(1, props.height - 1);
  // The position (12/1004) goes after the last header, in room taken from the flexible columns
  // so neither is cut; where that would leave them too narrow (60 columns) it is left out.
  const specs = props.columns.map((c) => c.width);
  const room = props.rows.length > visible ? String(props.rows.length).length * 2 + 2 : 0;
  const narrowed = columnWidths(specs, width - 2 - room);
  const roomy = room > 0 && narrowed.every((w, i) => specs[i] !== undefined || w >= MIN_FLEXIBLE);
  const widths = roomy ? narrowed : columnWidths(specs, width - 2);
  const more = roomy ? `${props.selected + 1}/${props.rows.length}` : '';
  const start = windowStart(props.selected, props.rows.length, visible);
  const shown = props.rows.slice(start, start + visible);

  const cellColor = (c: ColumnSpec<T>, row: T, isSelected: boolean) => {
    const name = isSelected ? undefined : c.color?.(row);
    return name ? color(name) : undefined;
  };
  const text = (c: ColumnSpec<T>, i: number, row: T) => {
    const v = c.value(row);
    return c.align === 'right' ? padStartToWidth(cell(v, widths[i]).trimEnd(), widths[i]) : cell(v, widths[i]);
  };

  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {'  '}
        {props.columns.map((c, i) => (c.align === 'right' ? padStartToWidth(c.header, widths[i]) : cell(c.header, widths[i]))).join(' ')}
        {more ? ` ${more}` : ''}
      </Text>
      {props.rows.length === 0 ? (
        <Text dimColor>{`  ${props.empty ?? 'nothing here yet'}`}</Text>
      ) : (
        shown.map((row, n) => {
          const isSelected = focused && start + n === props.selected;
          return (
            <Text key={props.rowKey(row)} inverse={isSelected} wrap="truncate">
              {isSelected ? '› ' : '  '}
              {props.columns.map((c, i) => (
                <Fragment key={c.header}>
                  {i > 0 ? ' ' : ''}
                  <Text color={cellColor(c, row, isSelected)}>{text(c, i, row)}</Text>
                </Fragment>
              ))}
            </Text>
          );
        })
      )}
    </Box>
  );
}

"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import type { NameType, ValueType } from "recharts/types/component/DefaultTooltipContent";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { fitLabel, labelColumnWidth, usdAxis } from "@/lib/features/costs/cost-axis";

const AXIS = { fontSize: 11, fill: "currentColor" };
const BAR_COLOR = "#6366f1";

/** Recharts' default tooltip is white on white in dark mode; this one follows the theme. */
function CostTooltip({ active, payload, label }: TooltipContentProps<ValueType, NameType>) {
  if (!active || !payload?.length) return null;
  const row = payload[0].payload as { costUsd: number; runs?: number; calls?: number };
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs shadow dark:border-zinc-700 dark:bg-zinc-900">
      <div className="font-medium">{label}</div>
      <div>{formatUsd(row.costUsd)}</div>
      {row.runs !== undefined && <div className="text-zinc-500">{row.runs === 1 ? "1 run" : `${row.runs} runs`}</div>}
      {row.calls !== undefined && <div className="text-zinc-500">{row.calls === 1 ? "1 model call" : `${row.calls} model calls`}</div>}
    </div>
  );
}

const maxCost = (data: { costUsd: number }[]) => data.reduce((m, d) => Math.max(m, d.costUsd), 0);

/** A name beside its bar: whole when it fits, else cut with an ellipsis and whole in its tooltip. */
function NameTick({ x, y, payload, width }: { x?: number; y?: number; payload?: { value: string }; width: number }) {
  const name = payload?.value ?? "";
  return (
    <text x={x} y={y} dy={4} textAnchor="end" fontSize={AXIS.fontSize} fill="currentColor">
      <title>{name}</title>
      {fitLabel(name, width)}
    </text>
  );
}

export function CostByDayChart({ data }: { data: { day: string; costUsd: number; runs: number }[] }) {
  const axis = usdAxis(maxCost(data));
  return (
    <div className="h-56 text-zinc-500" data-testid="cost-by-day-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} vertical={false} />
          <XAxis dataKey="day" tick={AXIS} tickFormatter={(d: string) => d.slice(5)} minTickGap={16} />
          <YAxis tick={AXIS} ticks={axis.ticks} domain={[0, axis.domainMax]} tickFormatter={axis.format} width={60} interval={0} />
          <Tooltip content={CostTooltip} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
          <Bar dataKey="costUsd" name="Cost" fill={BAR_COLOR} radius={[3, 3, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Horizontal bars, one per name (agent or model), tallest cost first. */
export function CostBreakdownChart({ data, testId }: { data: { name: string; costUsd: number; runs?: number; calls?: number }[]; testId: string }) {
  const height = Math.max(120, data.length * 32 + 24);
  const axis = usdAxis(maxCost(data), 3);
  const labelWidth = labelColumnWidth(data.map((d) => d.name));
  return (
    <div className="text-zinc-500" style={{ height }} data-testid={testId}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 32, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} horizontal={false} />
          <XAxis type="number" tick={AXIS} ticks={axis.ticks} domain={[0, axis.domainMax]} tickFormatter={axis.format} interval={0} />
          <YAxis type="category" dataKey="name" tick={<NameTick width={labelWidth} />} width={labelWidth} interval={0} />
          <Tooltip content={CostTooltip} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
          <Bar dataKey="costUsd" name="Cost" fill={BAR_COLOR} radius={[0, 3, 3, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

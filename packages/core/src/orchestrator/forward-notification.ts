import type { AgentEvent } from '../agent/agent-event.ts';
import type { TurnObserver } from '../agent/turn-types.ts';
import type { ApprovalRecord } from '../permissions/permission-types.ts';
import type { ToolResult } from '../types.ts';
import { eventTypes } from './ipc-message.ts';

/**
 * Replays a runtime notification of an agent process (`runtime.*` event) on a TurnObserver, so whatever prints
 * an in-process turn (the CLI's tool-call printer, streamed text) prints a turn in another process the same way.
 * Observer errors are swallowed (STYLE habit 8).
 */
export function forwardNotification(event: AgentEvent, observer: TurnObserver): void {
  const data = (event.data ?? {}) as Record<string, unknown>;
  try {
    switch (event.type) {
      case eventTypes.textDelta:
        observer.onTextDelta?.(String(data.text ?? ''));
        return;
      case eventTypes.toolStart:
        observer.onToolCallStart?.({
          toolCallId: String(data.toolCallId),
          toolName: String(data.toolName),
          args: data.args,
        });
        return;
      case eventTypes.toolEnd:
        observer.onToolCallEnd?.({
          toolCallId: String(data.toolCallId),
          toolName: String(data.toolName),
          result: data.result as ToolResult,
          durationMs: Number(data.durationMs),
        });
        return;
      case eventTypes.modelRetry:
        observer.onModelRetry?.({
          turnId: String(data.turnId),
          stepIndex: Number(data.stepIndex),
          model: String(data.model),
          attempt: Number(data.attempt),
          maxAttempts: Number(data.maxAttempts),
          message: String(data.message ?? ''),
          delayMs: Number(data.delayMs),
        });
        return;
      case eventTypes.approvalRequested:
        observer.onApprovalRequested?.(data as unknown as ApprovalRecord);
        return;
      case eventTypes.approvalResolved:
        observer.onApprovalResolved?.(data as unknown as ApprovalRecord);
        return;
    }
  } catch {
    // Observers cannot break routing.
  }
}

import type { Feedback } from './actions';

export function FeedbackNote({ feedback }: { feedback: Feedback | undefined }) {
  if (!feedback) return null;
  return (
    <p class={feedback.ok ? 'form-ok' : 'form-error'} role={feedback.ok ? 'status' : 'alert'}>
      {feedback.text}
    </p>
  );
}

/** What ctx.mail.send and ctx.sms.send accept (pure checks) and how logs show recipients. */
import { ActorError, RuntimeCodes } from '../../runtime';
import {
  checkMail,
  checkSms,
  isSender,
  maskAddress,
  maskPhone,
  MAX_MAIL_RECIPIENTS,
  messageIdHeader,
} from '../../runtime/mail/message';

function refusal(fn: () => unknown): { field: string; reason: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ActorError);
    expect((err as ActorError).code).toBe(RuntimeCodes.VALIDATION.code);
    expect((err as ActorError).status).toBe(400);
    return ((err as ActorError).details as { errors: { field: string; reason: string }[] }).errors;
  }
  throw new Error('expected a refusal');
}

describe('checkMail', () => {
  test('keeps the known fields of a valid mail', () => {
    const m = {
      to: ['a@example.com'],
      cc: ['b@example.com'],
      bcc: ['c@example.com'],
      from: 'Desk <d@example.com>',
      replyTo: 'r@example.com',
      subject: 'S',
      html: '<p>x</p>',
      text: 'x',
    };
    expect(checkMail(m)).toEqual(m);
    expect(checkMail({ to: ['a@example.com'], subject: '', text: 'only text' })).toEqual({
      to: ['a@example.com'],
      subject: '',
      text: 'only text',
    });
  });

  test('names each bad field', () => {
    expect(refusal(() => checkMail({ to: [], subject: 'x', html: 'y' }))).toEqual([
      { field: 'mail.to', reason: 'must name at least one mail address' },
    ]);
    expect(
      refusal(() => checkMail({ to: ['ok@example.com', 'not an address', 'x@y@z'], subject: 'x', html: 'y' })).map(
        (e) => e.field,
      ),
    ).toEqual(['mail.to[1]', 'mail.to[2]']);
    expect(refusal(() => checkMail({ to: 'a@example.com', subject: 'x', html: 'y' }))).toEqual([
      { field: 'mail.to', reason: 'must be an array of mail addresses' },
    ]);
    expect(refusal(() => checkMail({ to: ['a@example.com'], subject: 'x' }))).toEqual([
      { field: 'mail.html', reason: 'html or text is required' },
    ]);
    expect(refusal(() => checkMail({ to: ['a@example.com'], subject: 7, html: 'y' }))).toEqual([
      { field: 'mail.subject', reason: 'must be a string' },
    ]);
    expect(refusal(() => checkMail({ to: ['a@example.com'], subject: 'x', html: 'y', attachments: [] }))).toEqual([
      { field: 'mail.attachments', reason: 'is not a mail field' },
    ]);
    expect(
      refusal(() =>
        checkMail({
          to: ['a@example.com'],
          cc: ['bad'],
          bcc: [3],
          from: 'nobody',
          replyTo: '<>',
          subject: 'x',
          html: 'y',
        }),
      ).map((e) => e.field),
    ).toEqual(['mail.cc[0]', 'mail.bcc[0]', 'mail.from', 'mail.replyTo']);
    expect(refusal(() => checkMail(null))).toEqual([{ field: 'mail', reason: 'must be an object' }]);
  });

  test('refuses header injection through the subject or an address', () => {
    expect(
      refusal(() => checkMail({ to: ['a@example.com'], subject: 'hi\r\nBcc: evil@example.com', html: 'y' })),
    ).toEqual([{ field: 'mail.subject', reason: 'must be one line' }]);
    expect(
      refusal(() => checkMail({ to: ['a@example.com\r\nBcc: evil@example.com'], subject: 'x', html: 'y' })).map(
        (e) => e.field,
      ),
    ).toEqual(['mail.to[0]']);
    expect(
      refusal(() =>
        checkMail({ to: ['a@example.com'], from: 'X <a@example.com>\r\nBcc: e@example.com', subject: 'x', html: 'y' }),
      ).map((e) => e.field),
    ).toEqual(['mail.from']);
  });

  test('caps the recipients of one mail', () => {
    const many = Array.from({ length: MAX_MAIL_RECIPIENTS }, (_, i) => `r${i}@example.com`);
    expect(checkMail({ to: many, subject: 'x', text: 'y' }).to).toHaveLength(MAX_MAIL_RECIPIENTS);
    expect(
      refusal(() => checkMail({ to: many, bcc: ['one.more@example.com'], subject: 'x', text: 'y' }))[0]!.reason,
    ).toMatch(/at most 100 recipients/);
  });

  test('the committed copy does not share arrays with the handler', () => {
    const to = ['a@example.com'];
    const out = checkMail({ to, subject: 'x', text: 'y' });
    to.push('late@example.com');
    expect(out.to).toEqual(['a@example.com']);
  });
});

describe('checkSms', () => {
  test('keeps a valid SMS', () => {
    expect(checkSms({ to: ['+4479001234567', '0790012345'], text: 'Your code is 123456' })).toEqual({
      to: ['+4479001234567', '0790012345'],
      text: 'Your code is 123456',
    });
  });

  test('names each bad field', () => {
    expect(refusal(() => checkSms({ to: ['+44 7900'], text: '' })).map((e) => e.field)).toEqual([
      'sms.to[0]',
      'sms.text',
    ]);
    expect(refusal(() => checkSms({ to: [], text: 'x' }))).toEqual([
      { field: 'sms.to', reason: 'must name at least one phone number' },
    ]);
    expect(refusal(() => checkSms({ to: ['+4479001234567'], text: 'x'.repeat(1601) }))[0]!.field).toBe('sms.text');
    expect(refusal(() => checkSms({ to: ['+4479001234567'], text: 'x', from: 'me' }))).toEqual([
      { field: 'sms.from', reason: 'is not an SMS field' },
    ]);
  });
});

describe('helpers', () => {
  test('Message-ID header', () => {
    expect(messageIdHeader('0b9c4c2e-2d1a-4d7e-9f00-7a7a7a7a7a7a', 'membership')).toBe(
      '<0b9c4c2e-2d1a-4d7e-9f00-7a7a7a7a7a7a@membership>',
    );
  });

  test('senders may carry a display name, recipients may not', () => {
    expect(isSender('Membership Desk <desk@example.com>')).toBe(true);
    expect(isSender('"Desk, Membership" <desk@example.com>')).toBe(true);
    expect(isSender('desk@example.com')).toBe(true);
    expect(isSender('Desk <not an address>')).toBe(false);
    expect(() => checkMail({ to: ['Desk <desk@example.com>'], subject: 'x', text: 'y' })).toThrow(ActorError);
  });

  test('logs show the last 3 digits of a phone number and the domain of an address', () => {
    expect(maskPhone('+4479001234567')).toBe('***********567');
    expect(maskPhone('12')).toBe('**');
    expect(maskAddress('anna.b@example.com')).toBe('a***@example.com');
  });
});

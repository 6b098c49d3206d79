/**
 * A real samlify IdentityProvider playing the company's identity provider in
 * the SAML tests: it reads the service's published metadata, parses the
 * service's AuthnRequests and signs real login responses with a test-only key
 * pair from fixtures/ (see fixtures/README.md).
 *
 * `answer(loginUrl, sp, …)` is the usual sign-in: the response to the
 * AuthnRequest of the service's login URL (InResponseTo its id, Destination
 * and Recipient the ACS URL); `respond(sp, …)` is a response the provider
 * starts itself (unsolicited, unless `inResponseTo` is given).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  Constants,
  IdentityProvider,
  type IdentityProviderInstance,
  SamlLib,
  ServiceProvider,
  type ServiceProviderInstance,
} from 'samlify';

const FIXTURES = path.join(__dirname, 'fixtures');
export const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const BASIC = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';

export interface ResponseOptions {
  /** NameID; default the email */
  nameId?: string;
  /** attributes by name; default { email } when `email` is given */
  attributes?: Record<string, string | string[]>;
  email?: string;
  /** default: the service provider's entity id */
  audience?: string;
  /** Conditions NotBefore, default 1 minute ago */
  notBefore?: Date;
  /** Conditions NotOnOrAfter, default in 5 minutes */
  notOnOrAfter?: Date;
  /** bearer SubjectConfirmationData NotOnOrAfter, default = notOnOrAfter; null: none */
  subjectNotOnOrAfter?: Date | null;
  /** Response Destination and SubjectConfirmationData Recipient, default the ACS URL */
  recipient?: string;
  /** Response Destination alone, default `recipient`; null: none */
  destination?: string | null;
  /** SubjectConfirmationData Recipient alone, default `recipient`; null: none */
  subjectRecipient?: string | null;
  /** the request answered, on the Response and the SubjectConfirmationData; default none (unsolicited) */
  inResponseTo?: string;
  statusCode?: string;
  assertionId?: string;
}

export class TestIdp {
  readonly idp: IdentityProviderInstance;
  constructor(
    readonly entityId: string,
    readonly ssoUrl: string,
    key = fixture('idp.key.pem'),
    readonly cert = fixture('idp.cert.pem'),
    opts: { wantAuthnRequestsSigned?: boolean } = {},
  ) {
    this.idp = IdentityProvider({
      entityID: entityId,
      privateKey: key,
      signingCert: cert,
      nameIDFormat: [EMAIL_FORMAT],
      singleSignOnService: [{ Binding: Constants.namespace.binding.redirect, Location: ssoUrl }],
      // a real identity provider publishes one; without it samlify warns on the console
      singleLogoutService: [{ Binding: Constants.namespace.binding.redirect, Location: `${ssoUrl}/logout` }],
      wantAuthnRequestsSigned: opts.wantAuthnRequestsSigned ?? false,
    });
  }

  metadata(): string {
    return this.idp.getMetadata();
  }

  /** the service provider as this identity provider knows it: from the metadata the service publishes */
  static spFromMetadata(metadataXml: string): ServiceProviderInstance {
    return ServiceProvider({ metadata: metadataXml });
  }

  /** the response XML before any signature (samlify's default template, our values) */
  xml(sp: ServiceProviderInstance, o: ResponseOptions = {}): string {
    const now = Date.now();
    const acs = sp.entityMeta.getAssertionConsumerService(Constants.wording.binding.post) as string;
    const notOnOrAfter = o.notOnOrAfter ?? new Date(now + 5 * 60_000);
    const attributes = o.attributes ?? (o.email ? { email: o.email } : {});
    const attributeXml = Object.keys(attributes).length
      ? `<saml:AttributeStatement>${Object.entries(attributes)
          .map(
            ([name, values]) =>
              `<saml:Attribute Name="${esc(name)}" NameFormat="${BASIC}">${(Array.isArray(values) ? values : [values])
                .map((v) => `<saml:AttributeValue xsi:type="xs:string">${esc(v)}</saml:AttributeValue>`)
                .join('')}</saml:Attribute>`,
          )
          .join('')}</saml:AttributeStatement>`
      : '';
    const authnStatement = `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`;
    // the two statements are XML, which replaceTagsByValue would escape
    const template = SamlLib.defaultLoginResponseTemplate.context
      .replace('{AuthnStatement}', authnStatement)
      .replace('{AttributeStatement}', attributeXml);
    return SamlLib.replaceTagsByValue(template, {
      ID: `_${randomUUID()}`,
      AssertionID: o.assertionId ?? `_${randomUUID()}`,
      Destination: o.destination === null ? null : (o.destination ?? o.recipient ?? acs),
      Audience: o.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: o.subjectRecipient === null ? null : (o.subjectRecipient ?? o.recipient ?? acs),
      Issuer: this.entityId,
      IssueInstant: new Date(now).toISOString(),
      StatusCode: o.statusCode ?? Constants.StatusCode.Success,
      ConditionsNotBefore: (o.notBefore ?? new Date(now - 60_000)).toISOString(),
      ConditionsNotOnOrAfter: notOnOrAfter.toISOString(),
      SubjectConfirmationDataNotOnOrAfter:
        o.subjectNotOnOrAfter === null ? null : (o.subjectNotOnOrAfter ?? notOnOrAfter).toISOString(),
      NameIDFormat: EMAIL_FORMAT,
      NameID: o.nameId ?? o.email ?? 'nobody',
      InResponseTo: o.inResponseTo ?? null,
    });
  }

  /**
   * A login response signed by this identity provider's key with samlify's
   * createLoginResponse (the assertion when the service provider wants
   * assertions signed, otherwise the whole Response), base64 as the
   * HTTP-POST binding carries it.
   */
  async respond(sp: ServiceProviderInstance, o: ResponseOptions = {}): Promise<string> {
    const xml = this.xml(sp, o);
    const result = await this.idp.createLoginResponse(
      sp,
      { extract: {} },
      'post',
      { email: o.email },
      {
        customTagReplacement: () => ({ id: '', context: xml }),
      },
    );
    return result.context;
  }

  /** the AuthnRequest a login URL of the service carries, as this provider reads it (its signature checked when it has one) */
  async request(loginUrl: string, sp: ServiceProviderInstance): Promise<{ id: string; acsUrl: string }> {
    const url = new URL(loginUrl);
    // HTTP-Redirect binding: a signature covers the query as sent, Signature itself left out
    const octetString = url.search
      .slice(1)
      .split('&')
      .filter((p) => !p.startsWith('Signature='))
      .join('&');
    const parsed = await this.idp.parseLoginRequest(sp, 'redirect', {
      query: Object.fromEntries(url.searchParams),
      octetString,
    });
    const request = parsed.extract.request as Record<string, string>;
    return { id: request.id!, acsUrl: request.assertionConsumerServiceUrl! };
  }

  /** the signed response to the AuthnRequest of `loginUrl`: InResponseTo its id (unless `o` says otherwise) */
  async answer(loginUrl: string, sp: ServiceProviderInstance, o: ResponseOptions = {}): Promise<string> {
    const { id } = await this.request(loginUrl, sp);
    return this.respond(sp, { inResponseTo: id, ...o });
  }

  /** the same response, with no signature at all */
  unsigned(sp: ServiceProviderInstance, o: ResponseOptions = {}): string {
    return Buffer.from(this.xml(sp, o)).toString('base64');
  }
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

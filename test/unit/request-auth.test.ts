/**
 * The signatures of API nodes' `auth` schemes (src/net/request-auth.ts), each against the worked
 * example its specification publishes: RFC 5849 (OAuth 1.0), RFC 7616 (Digest), AWS's SigV4 test
 * suite (`get-vanilla`), the Hawk README's example; and what results show of them
 * (src/domain/request-auth.ts).
 */
import { expect } from 'chai';
import hawk from 'hawk';
import { maskedAuth } from '../../src/domain/request-auth';
import {
  digestAuthorization,
  digestChallenge,
  oauthBaseString,
  oauthSignature,
  parseChallenges,
  signRequest,
} from '../../src/net/request-auth';

describe('request auth signatures (src/net/request-auth)', () => {
  describe('OAuth 1.0 (RFC 5849)', () => {
    it('builds the signature base string of RFC 5849 §3.4.1.1', () => {
      const target = '/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b';
      const base = oauthBaseString(
        'POST',
        new URL(`http://example.com${target}`),
        target,
        {
          oauth_consumer_key: '9djdj82h48djs9d2',
          oauth_token: 'kkk9d7dh3k39sjv7',
          oauth_signature_method: 'HMAC-SHA1',
          oauth_timestamp: '137131201',
          oauth_nonce: '7d8f3e4a',
        },
        'c2&a3=2+q',
      );
      expect(base).to.equal(
        'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
      );
    });

    const photos = {
      type: 'oauth1' as const,
      consumerKey: 'dpf43f3p2l4k3l03',
      consumerSecret: 'kd94hf93k423kf44',
      token: 'nnch734d00sl2jdk',
      tokenSecret: 'pfkkdhi9sl3r4s00',
    };
    const photosRequest = {
      method: 'GET',
      url: new URL('http://photos.example.net/photos?file=vacation.jpg&size=original'),
      target: '/photos?file=vacation.jpg&size=original',
      headers: {},
    };

    it('signs the photos example with HMAC-SHA1 (OAuth Core 1.0 appendix A.5, with oauth_version)', () => {
      const signed = signRequest({ ...photos, timestamp: '1191242096', nonce: 'kllo9940pd9333jh' }, photosRequest);
      expect(signed.headers.Authorization).to.include('oauth_signature="tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D"');
      expect(signed.headers.Authorization).to.match(/^OAuth oauth_consumer_key="dpf43f3p2l4k3l03", /);
      expect(signed.headers.Authorization).to.include('oauth_version="1.0"');
    });

    it('signs RFC 5849 §1.2 (no oauth_version, realm in the header only) with the signature its errata give', () => {
      const signed = signRequest(
        { ...photos, timestamp: '137131202', nonce: 'chapoH', includeVersion: false, realm: 'Photos' },
        photosRequest,
      );
      expect(signed.headers.Authorization).to.equal(
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131202", oauth_nonce="chapoH", oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"',
      );
    });

    it('PLAINTEXT is the encoded secrets (RFC 5849 §3.4.4); HMAC-SHA256 differs from SHA1; query placement', () => {
      expect(oauthSignature('PLAINTEXT', 'ignored', 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00')).to.equal(
        'kd94hf93k423kf44&pfkkdhi9sl3r4s00',
      );
      const base = 'GET&x&y';
      expect(oauthSignature('HMAC-SHA256', base, 'a', 'b')).to.not.equal(oauthSignature('HMAC-SHA1', base, 'a', 'b'));
      const inQuery = signRequest(
        { ...photos, timestamp: '1191242096', nonce: 'kllo9940pd9333jh', placement: 'query' },
        photosRequest,
      );
      expect(inQuery.headers).to.deep.equal({});
      expect(inQuery.target).to.match(
        /^\/photos\?file=vacation\.jpg&size=original&oauth_consumer_key=dpf43f3p2l4k3l03&/,
      );
      expect(inQuery.target).to.include('&oauth_signature=tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D');
    });

    it('includes a form body in the signature, and a new nonce and timestamp each time unless fixed', () => {
      const post = (body: string) =>
        signRequest(
          { ...photos, timestamp: '1', nonce: 'n' },
          {
            ...photosRequest,
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body,
          },
        ).headers.Authorization;
      expect(post('a=1')).to.not.equal(post('a=2'));
      const a = signRequest(photos, photosRequest).headers.Authorization!;
      const b = signRequest(photos, photosRequest).headers.Authorization!;
      expect(/oauth_nonce="([^"]+)"/.exec(a)![1]).to.not.equal(/oauth_nonce="([^"]+)"/.exec(b)![1]);
    });
  });

  describe('Digest (RFC 7616)', () => {
    // RFC 7616 §3.9.1: two challenges, SHA-256 first.
    const challenges =
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", ' +
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
    const mufasa = { type: 'digest' as const, username: 'Mufasa', password: 'Circle of Life' };
    const cnonce = 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ';
    const request = { method: 'GET', target: '/dir/index.html' };

    it('answers the SHA-256 challenge of §3.9.1 with its response', () => {
      const header = digestAuthorization(mufasa, digestChallenge(challenges)!, request, cnonce);
      expect(header).to.equal(
        'Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", algorithm=SHA-256, qop=auth, nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
      );
    });

    it('answers the MD5 challenge of §3.9.1 with its response', () => {
      const md5 = parseChallenges(challenges)[1]!;
      expect(md5.params.algorithm).to.equal('MD5');
      expect(digestAuthorization(mufasa, md5, request, cnonce)).to.include(
        'response="8ca523f5e9506fed4657c9700eebdbec"',
      );
    });

    it('parses several schemes in one field and skips challenges it cannot answer', () => {
      expect(parseChallenges('Basic realm="a, b", Digest nonce="n", realm="r"')).to.deep.equal([
        { scheme: 'basic', params: { realm: 'a, b' } },
        { scheme: 'digest', params: { nonce: 'n', realm: 'r' } },
      ]);
      expect(digestChallenge('Basic realm="x"')).to.equal(undefined);
      expect(digestChallenge('Digest realm="x", nonce="n", algorithm=SHA-1024')).to.equal(undefined);
      // No qop: RFC 2069's response, H(HA1:nonce:HA2).
      expect(digestAuthorization(mufasa, digestChallenge('Digest realm="r", nonce="n"')!, request)).to.not.include(
        'qop=',
      );
    });
  });

  it('AWS Signature Version 4: the get-vanilla case of the SigV4 test suite', () => {
    const signed = signRequest(
      {
        type: 'awsv4',
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        region: 'us-east-1',
        service: 'service',
      },
      {
        method: 'GET',
        url: new URL('https://example.amazonaws.com/'),
        target: '/',
        headers: { 'X-Amz-Date': '20150830T123600Z' },
      },
    );
    expect(signed.headers.Authorization).to.equal(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it("Hawk: the README's example MAC, and the library's server side accepts a fresh header", async () => {
    const credentials = {
      id: 'dh37fgj492je',
      key: 'werxhqb98rpaxn39848xrunpaw3489ruxnpa98w4rxn',
      algorithm: 'sha256' as const,
    };
    const example = signRequest(
      { type: 'hawk', ...credentials, timestamp: '1353832234', nonce: 'j4h3g2', ext: 'some-app-ext-data' },
      {
        method: 'GET',
        url: new URL('http://example.com:8000/resource/1?b=1&a=2'),
        target: '/resource/1?b=1&a=2',
        headers: {},
      },
    );
    expect(example.headers.Authorization).to.equal(
      'Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", ext="some-app-ext-data", mac="6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE="',
    );
    const fresh = signRequest(
      { type: 'hawk', ...credentials, includePayloadHash: true },
      {
        method: 'POST',
        url: new URL('http://example.com:8000/r?x=1'),
        target: '/r?x=1',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      },
    );
    const { artifacts } = await hawk.server.authenticate(
      {
        method: 'POST',
        url: '/r?x=1',
        host: 'example.com',
        port: 8000,
        authorization: fresh.headers.Authorization!,
        contentType: 'text/plain',
      },
      () => credentials,
      { payload: 'hello' },
    );
    expect(artifacts.hash).to.be.a('string');
  });

  it('results show every field but the secrets, which are ***', () => {
    expect(maskedAuth({ type: 'digest', username: 'u', password: 'p4ss' })).to.deep.equal({
      type: 'digest',
      username: 'u',
      password: '***',
    });
    expect(
      maskedAuth({ type: 'awsv4', accessKeyId: 'AK', secretAccessKey: 'S', sessionToken: 'T', region: 'eu-west-1' }),
    ).to.deep.equal({
      type: 'awsv4',
      accessKeyId: 'AK',
      secretAccessKey: '***',
      sessionToken: '***',
      region: 'eu-west-1',
    });
    expect(maskedAuth({ type: 'oauth1', consumerKey: 'ck', consumerSecret: 'cs', tokenSecret: 'ts' })).to.deep.equal({
      type: 'oauth1',
      consumerKey: 'ck',
      consumerSecret: '***',
      tokenSecret: '***',
    });
    expect(maskedAuth({ type: 'hawk', id: 'i', key: 'k' }).key).to.equal('***');
  });
});

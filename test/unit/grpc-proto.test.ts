/**
 * gRPC nodes' pure parts (docs/async.md "gRPC"): `.proto` source compiled in memory with its
 * imports (protoFiles, Google's well-known types), the save-time check naming the field at fault,
 * request messages checked for unknown fields, and targets read (activities/grpc.ts).
 */
import { expect } from 'chai';
import { compileProto, findMethod, messageProblem, protoProblem } from '../../src/grpc/proto';
import { parseGrpcTarget } from '../../activities/grpc';

const COMMON = `syntax = "proto3";
package shop.common;
message Money { string currency = 1; int64 units = 2; }
`;
const SHOP = `syntax = "proto3";
package shop.v1;
import "shop/common.proto";
import "google/protobuf/timestamp.proto";
service Orders {
  rpc Get (GetOrder) returns (Order);
  rpc Watch (GetOrder) returns (stream Order);
  rpc Upload (stream Order) returns (Order);
  rpc Chat (stream Order) returns (stream Order);
}
message GetOrder { string id = 1; }
message Order { string id = 1; shop.common.Money total = 2; google.protobuf.Timestamp at = 3; repeated Line lines = 4; }
message Line { string sku = 1; }
`;
const files = { 'shop/common.proto': COMMON };

describe('gRPC: .proto source and targets', () => {
  it('compiles a proto with an import from protoFiles and a well-known type; finds unary and server-streaming methods', () => {
    const compiled = compileProto(SHOP, files);
    expect(findMethod(compiled, 'shop.v1.Orders', 'Get')).to.include({ path: '/shop.v1.Orders/Get', streaming: false });
    expect(findMethod(compiled, 'shop.v1.Orders', 'Watch')).to.include({ streaming: true });
    expect(compileProto(SHOP, files)).to.equal(compiled); // cached by content
  });

  it('names the field at fault: proto, service or method; client and bidirectional streams are not supported', () => {
    expect(protoProblem(SHOP, files, 'shop.v1.Orders', 'Get')).to.equal(undefined);
    expect(protoProblem(SHOP, {}, 'shop.v1.Orders', 'Get')).to.deep.include({ field: 'proto' });
    expect(protoProblem(SHOP, {}, 'shop.v1.Orders', 'Get')!.message).to.contain('"shop/common.proto"');
    expect(protoProblem('syntax = "proto3"; message {', {}, 'a.B', 'C')!.message).to.contain('does not parse');
    expect(protoProblem(SHOP, files, 'Orders', 'Get')).to.deep.include({ field: 'service' });
    expect(protoProblem(SHOP, files, 'shop.v1.Orders', 'Put')).to.deep.include({ field: 'method' });
    expect(protoProblem(SHOP, files, 'shop.v1.Orders', 'Upload')!.message).to.contain('client-streaming');
    expect(protoProblem(SHOP, files, 'shop.v1.Orders', 'Chat')!.message).to.contain('bidirectional');
  });

  it('refuses a message with a field its type lacks, nested and repeated messages too', () => {
    const compiled = compileProto(SHOP, files);
    const order = compiled.root.lookupType('shop.v1.Order');
    expect(
      messageProblem(order, { id: 'o1', total: { currency: 'EUR', units: '12' }, lines: [{ sku: 'a' }] }),
    ).to.equal(undefined);
    expect(messageProblem(order, { id: 'o1', total: { currency: 'EUR', unit: 1 } })).to.contain(
      'shop.common.Money has no field "total.unit"',
    );
    expect(messageProblem(order, { lines: [{ sku: 'a' }, { skew: 'b' }] })).to.contain('"lines.skew"');
    expect(messageProblem(order, [1])).to.contain('must be a JSON object');
  });

  it('reads targets: host:port, grpc:// and http:// plaintext, grpcs:// and https:// TLS (443 by default), IPv6 in brackets', () => {
    expect(parseGrpcTarget('localhost:50051')).to.deep.equal({ host: 'localhost', port: 50051, tls: false });
    expect(parseGrpcTarget('grpc://10.0.0.1:9000')).to.deep.equal({ host: '10.0.0.1', port: 9000, tls: false });
    expect(parseGrpcTarget('grpcs://api.example.com')).to.deep.equal({ host: 'api.example.com', port: 443, tls: true });
    expect(parseGrpcTarget('https://api.example.com:8443/')).to.deep.equal({
      host: 'api.example.com',
      port: 8443,
      tls: true,
    });
    expect(parseGrpcTarget('grpc://[::1]:50051')).to.deep.equal({ host: '::1', port: 50051, tls: false });
    expect(() => parseGrpcTarget('localhost')).to.throw('a port is needed');
    expect(() => parseGrpcTarget('grpc://host:1/path')).to.throw('without a path');
    expect(() => parseGrpcTarget('ws://host:1')).to.throw('scheme');
  });
});

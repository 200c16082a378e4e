#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver for the export tests.

Listens on 127.0.0.1 at a port the system picks, prints that port on its
first line of output, and answers POST /v1/traces: each
ExportTraceServiceRequest (protobuf or JSON, gzip or not) is decoded with
opentelemetry-proto and appended to the file named by the first argument
as one JSON line (protobuf's JSON mapping), then acknowledged. Runs until
its standard input closes or it is killed.
"""
import gzip
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

OUTPUT = sys.argv[1]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/v1/traces":
            self.send_error(404, "only /v1/traces")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding", "") == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        content_type = self.headers.get("Content-Type", "")
        try:
            if content_type.startswith("application/json"):
                json_format.Parse(body, request)
            else:
                request.ParseFromString(body)
        except Exception as error:  # a malformed export is the exporter's bug: say so
            self.send_error(400, f"cannot decode: {error}")
            return
        record = json_format.MessageToDict(request)
        record["contentType"] = content_type
        with open(OUTPUT, "a", encoding="utf-8") as output:
            output.write(json.dumps(record) + "\n")
        response = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(response)))
        self.end_headers()
        self.wfile.write(response)

    def log_message(self, format, *args):
        pass


def exit_when_stdin_closes():
    sys.stdin.read()
    os._exit(0)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
server.serve_forever()

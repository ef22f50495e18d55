#!/usr/bin/env bash
# Regenerates the stores in this directory, each in the format a real tool
# writes it: openssl 3 for PEM keys and certificates, keytool (JDK 17) for
# PKCS12 and JKS. Certificates are valid for 100 years; the tests only
# parse them (handshake tests make their own certificates in Go).
# Passwords: trustpass (truststores), storepass (keystores), keypass
# (encrypted keys).
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.pem ./*.key ./*.p12 ./*.jks ./*.srl
openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 36500 \
	-keyout ca.key -out ca.pem -subj "/O=Offset Lab test/CN=Test CA" \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.csr \
	-subj "/O=Offset Lab test/CN=reader" 2>/dev/null
printf 'extendedKeyUsage=clientAuth\n' >client.ext
openssl x509 -req -sha256 -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 36500 \
	-extfile client.ext -out client.pem 2>/dev/null
rm -f client.csr client.ext ca.srl
# the key alone, encrypted as PKCS#8 (PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC), as Java and openssl write it
openssl pkcs8 -topk8 -v2 aes-256-cbc -in client.key -out client-encrypted.key -passout pass:keypass
# OpenSSL's legacy encrypted PEM ("Proc-Type: 4,ENCRYPTED"), which we refuse with a conversion hint
openssl ec -in client.key -aes256 -out client-legacy.key -passout pass:keypass 2>/dev/null
# Java's PEM keystore: key and chain in one file
cat client-encrypted.key client.pem >client-keystore.pem
# PKCS12 as openssl writes it (no Java trust attribute), and as keytool writes it
openssl pkcs12 -export -nokeys -in ca.pem -out truststore-openssl.p12 -passout pass:trustpass
openssl pkcs12 -export -in client.pem -inkey client.key -certfile ca.pem -name reader \
	-out keystore.p12 -passout pass:storepass
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 -storepass trustpass 2>/dev/null
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.jks -storetype JKS -storepass trustpass 2>/dev/null
keytool -importkeystore -noprompt -srckeystore keystore.p12 -srcstoretype PKCS12 -srcstorepass storepass \
	-destkeystore keystore.jks -deststoretype JKS -deststorepass storepass 2>/dev/null
# a keytool-written PKCS12 keystore (JDK 17 defaults: PBES2/AES-256, HMAC-SHA256)
keytool -importkeystore -noprompt -srckeystore keystore.p12 -srcstoretype PKCS12 -srcstorepass storepass \
	-destkeystore keystore-keytool.p12 -deststoretype PKCS12 -deststorepass storepass 2>/dev/null
rm -f ca.key
ls -l

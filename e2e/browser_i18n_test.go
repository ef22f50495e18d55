package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestBrowserDashboardKorean switches the whole dashboard to Korean with the
// masthead's language switch: <html lang="ko">, the panels' titles and
// buttons, the log's lanes and pointers in Korean; the choice survives a
// reload and drives the lessons panel too; switching back restores English.
func TestBrowserDashboardKorean(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	p := openPage(t, a, chromium, 1280, 900)
	p.open("/")
	p.wait("the dashboard", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.click("seed-setup")
	p.wait("the seed's log", `byTestID('stream-status').dataset.state === 'open' && document.querySelectorAll('[data-testid="log-viewport"] .cell').length >= 3`, 15*time.Second)

	htmlLang := func() string {
		var l string
		p.eval(`document.documentElement.lang`, &l)
		return l
	}
	textOf := func(sel string) string {
		var s string
		p.eval(`(document.querySelector(`+"`"+sel+"`"+`)?.textContent ?? '').trim()`, &s)
		return s
	}
	english := map[string]string{
		"#processor-title":              "Order processor",
		"[data-testid=processor-crash]": "Crash before commit at O-2",
		"[data-testid=txn-crash]":       "Crash before commit",
		"#coord-title":                  "Transaction coordinator",
		"#timeline-title":               "What happened",
		"[data-testid=stream-status]":   "● live",
		"[data-testid=seed-setup]":      "Set up seed 000",
		"#details-title":                "Offset details",
	}
	korean := map[string]string{
		"#processor-title":              "주문 처리기",
		"[data-testid=processor-crash]": "O-2에서 커밋 전 크래시",
		"[data-testid=txn-crash]":       "커밋 전 크래시",
		"#coord-title":                  "트랜잭션 코디네이터",
		"#timeline-title":               "무슨 일이 있었나",
		"[data-testid=stream-status]":   "● 실시간",
		"[data-testid=seed-setup]":      "시드 000 준비",
		"#details-title":                "오프셋 상세",
	}
	check := func(when string, want map[string]string) {
		t.Helper()
		for sel, w := range want {
			if got := textOf(sel); got != w {
				t.Errorf("%s: %s reads %q, want %q", when, sel, got, w)
			}
		}
	}
	if l := htmlLang(); l != "en" {
		t.Fatalf("default <html lang> = %q, want en", l)
	}
	check("English (default)", english)
	p.screenshot("dashboard-en", 1280, 900, false)

	// A transaction begun in English, narrated in English.
	p.fill("txn-id", a.name("ko-tx"))
	p.click("txn-begin")
	p.wait("Begin", `byTestID('txn-status').dataset.step === 'begin'`, 30*time.Second)
	// A transaction begun is about no partition yet: the story tells it
	// when it shows the whole cluster.
	p.click("story-scope")
	p.wait("the begun transaction narrated in English", `[...document.querySelectorAll('[data-testid="event"][data-kind="info"] p')].some(e => e.dataset.key === 'narration.txn.begin' && e.textContent.startsWith('Transaction begun by transactional.id'))`, 10*time.Second)

	p.click("ui-lang-ko")
	if l := htmlLang(); l != "ko" {
		t.Fatalf("after 한국어: <html lang> = %q, want ko", l)
	}
	check("Korean", korean)
	// The log view: the lanes' gutter title, a lane's reason, the counts
	// and the LSO sentence (Kafka identifiers such as read_committed stay).
	if got := textOf("[data-testid=log-name]"); got != "order-totals-tx-0" {
		t.Errorf("the log's name reads %q after the switch, want order-totals-tx-0", got)
	}
	if got := textOf(".gutter .g-log"); got != "로그" {
		t.Errorf("the log lane's title reads %q in Korean", got)
	}
	if got := textOf("[data-testid=lane-count-rc]"); !hasHangul(got) || !strings.Contains(got, "read_committed") {
		t.Errorf("the read_committed count reads %q in Korean", got)
	}
	if got := textOf("[data-testid=lso-why]"); !hasHangul(got) {
		t.Errorf("the LSO sentence reads %q in Korean", got)
	}
	if l := p.attr("lessons-panel", "lang"); l != "ko" {
		t.Errorf("the masthead switch left the lessons panel in %q", l)
	}
	var untranslated []string
	p.eval(`[...document.querySelectorAll('[data-i18n]')].filter(e => e.offsetParent !== null && !/[\uac00-\ud7a3]/.test(e.textContent) && /[a-z]{3}/.test(e.textContent)).map(e => e.dataset.i18n + ': ' + e.textContent)`, &untranslated)
	for _, u := range untranslated {
		// Kafka identifiers stay as they are (at-most-once, read_committed ...).
		if !strings.Contains(u, "-once") && !strings.Contains(u, "read_") && !strings.Contains(u, "transactional.id") && !strings.Contains(u, "topic") {
			t.Errorf("visible after switching to Korean, without Hangul: %q", u)
		}
	}
	// The timeline's narration: the transaction begun in English before
	// the switch now reads in Korean (Kafka identifiers stay), and the
	// record sent after the switch is narrated in Korean as it arrives.
	p.wait("the begun transaction narrated in Korean", `[...document.querySelectorAll('[data-testid="event"][data-kind="info"] p')].some(e => e.dataset.key === 'narration.txn.begin' && e.textContent.includes('트랜잭션을 시작했어요') && e.textContent.includes('read_committed'))`, 5*time.Second)
	p.fill("txn-value", "payment P-7")
	p.click("txn-send")
	p.wait("Send", `byTestID('txn-status').dataset.step === 'send'`, 30*time.Second)
	p.wait("the sent record narrated in Korean", `[...document.querySelectorAll('[data-testid="event"][data-kind="write"] p')].some(e => e.dataset.key === 'narration.write.open' && e.textContent.includes("'payment P-7'") && e.textContent.includes('열린 트랜잭션'))`, 15*time.Second)

	// The API's error sentences: a validation error shows in Korean next
	// to the control (the API's "code" and "args"; Kafka identifiers
	// stay), follows a language switch, and a missing topic too.
	p.fill("produce-acks", "1")
	p.click("produce-idempotent")
	p.click("produce-submit")
	p.wait("the idempotence error in Korean", `(() => { const e = byTestID('produce-error'); return !e.hidden && e.dataset.i18n === 'error.idempotenceNeedsAcksAll' && e.textContent.includes('멱등성에는 acks=all이 필요해요') && e.textContent.includes('acks=1'); })()`, 10*time.Second)
	p.click("ui-lang-en")
	p.wait("the idempotence error in English", `byTestID('produce-error').textContent.startsWith('idempotence requires acks=all: enable.idempotence=true cannot be combined with acks=1')`, 5*time.Second)
	p.click("ui-lang-ko")
	p.wait("the idempotence error in Korean again", `byTestID('produce-error').textContent.includes('멱등성에는 acks=all이 필요해요')`, 5*time.Second)
	p.click("produce-idempotent")
	p.fill("produce-acks", "all")
	missing := a.name("ko-missing")
	p.fill("produce-topic", missing)
	p.click("produce-submit")
	p.wait("the missing topic in Korean", `(() => { const e = byTestID('produce-error'); return !e.hidden && e.dataset.i18n === 'error.unknownTopic' && e.textContent.startsWith('토픽 "`+missing+`"') && /"[이가] 없어요\.$/.test(e.textContent); })()`, 10*time.Second)
	p.click("processor-crash")
	p.wait("the processor's log in Korean, in the seed's own words", `(() => { const l = byTestID('processor-run-log'); return !!l && l.textContent.includes("오프셋 1 O-2 처리, order-totals-tx에 'O-2 total=42000' 씀") && l.textContent.includes('O-2: 오프셋을 트랜잭션에 넣은 뒤 commit_transaction 전에 프로세스 종료'); })()`, 30*time.Second)
	p.screenshot("dashboard-ko", 1280, 900, false)

	p.open("/")
	p.wait("the dashboard after a reload", `byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('stream-status').dataset.state === 'open'`, 15*time.Second)
	if l := htmlLang(); l != "ko" {
		t.Fatalf("after a reload: <html lang> = %q, want ko (remembered)", l)
	}
	check("Korean after a reload", korean)

	p.click("ui-lang-en")
	if l := htmlLang(); l != "en" {
		t.Fatalf("after EN: <html lang> = %q", l)
	}
	check("English again", english)
	p.click("story-scope")
	p.wait("the narration back in English", `[...document.querySelectorAll('[data-testid="event"][data-kind="info"] p')].some(e => e.dataset.key === 'narration.txn.begin' && e.textContent.startsWith('Transaction begun by transactional.id'))`, 5*time.Second)
	if l := p.attr("lessons-panel", "lang"); l != "en" {
		t.Errorf("after EN the lessons panel is %q", l)
	}
}

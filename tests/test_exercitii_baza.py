"""Testele mecanismului comun de verificare."""

import torch

from curs_compilare.exercitii.baza import (
    GresealaCursant,
    Rezultat,
    apeleaza,
    cere_numar,
    compara_tensori,
    verificare,
)


def _mesaj(corp):
    r = verificare("Test", corp)
    assert isinstance(r, Rezultat)
    return r


def test_neimplementat_devine_mesaj_in_romana():
    def stub():
        raise NotImplementedError

    r = _mesaj(lambda: apeleaza(stub))
    assert not r and "n-ai scris soluția" in r.mesaj
    assert "Traceback" not in r.text()


def test_exceptie_oarecare_devine_explicatie():
    r = _mesaj(lambda: apeleaza(lambda: 1 / 0))
    assert not r and "ZeroDivisionError" in r.mesaj and "împărțit la zero" in r.mesaj


def test_obiect_neapelabil():
    r = _mesaj(lambda: apeleaza(42))
    assert not r and "funcție" in r.mesaj


def test_compara_tensori_toate_greselile():
    asteptat = torch.arange(6.0).reshape(2, 3)
    cazuri = {
        "None": None,
        "tensor": [1, 2],
        "Forma": asteptat.reshape(3, 2),
        "Tipul": asteptat.double(),
        "Valorile diferă": asteptat + torch.tensor([[0, 0, 0], [0, 0, 1.0]]),
    }
    for fragment, obtinut in cazuri.items():
        r = _mesaj(lambda o=obtinut: compara_tensori(o, asteptat))
        assert not r and fragment in r.mesaj, (fragment, r.mesaj)
    r = _mesaj(lambda: compara_tensori(asteptat.clone(), asteptat) or "bine")
    assert r and r.mesaj == "bine"


def test_valorile_diferite_arata_pozitia():
    asteptat = torch.zeros(4)
    obtinut = torch.tensor([0.0, 0.0, 5.0, 0.0])
    r = _mesaj(lambda: compara_tensori(obtinut, asteptat))
    assert "(2,)" in r.mesaj and "1 din 4" in r.mesaj


def test_cere_numar():
    assert cere_numar(3, "x") == 3.0
    assert cere_numar(torch.tensor(2.5), "x") == 2.5
    for rau, fragment in [(None, "None"), ("3", "str"), (float("nan"), "nan"), (True, "bool")]:
        try:
            cere_numar(rau, "valoarea")
        except GresealaCursant as e:
            assert fragment in str(e)
        else:
            raise AssertionError(f"{rau!r} trebuia respins")


def test_rezultatul_se_afiseaza_in_html_si_text():
    r = Rezultat("Exercițiul 9", False, "greșit <aici>")
    assert "❌" in repr(r) and "&lt;aici&gt;" in r._repr_html_()
    assert bool(Rezultat("E", True, "")) is True


# ---------------------------------------------------------------------------------------------
# Limita de timp, excepțiile explicate, comparația strictă
# ---------------------------------------------------------------------------------------------

import subprocess
import sys
import textwrap
import time

import pytest

from curs_compilare.exercitii import baza


def _bucla_simpla():
    n = 0
    while True:
        n += 1


def _bucla_cu_except_gol():
    while True:
        try:
            sum(range(1000))
        except:  # noqa: E722 — exact greșeala pe care limita trebuie s-o reziste
            pass


def _bucla_in_except_gol():
    n = 0
    try:
        while True:
            n += 1
    except:  # noqa: E722
        pass
    while True:
        try:
            n += 1
        except:  # noqa: E722
            pass


def _somn_lung():
    time.sleep(5)


@pytest.mark.parametrize("functie", [_bucla_simpla, _bucla_cu_except_gol, _bucla_in_except_gol, _somn_lung])
def test_limita_de_timp_opreste_si_buclele_cu_except_gol(functie):
    inceput = time.perf_counter()
    r = _mesaj(lambda: baza.apeleaza(functie, limita_s=0.3))
    durata = time.perf_counter() - inceput
    assert not r and "n-a terminat" in r.mesaj and functie.__name__ in r.mesaj, r.mesaj
    assert durata < 2.0, durata
    # după întrerupere nu rămâne nimic pornit
    assert sys.gettrace() is None and torch.is_grad_enabled()
    assert _mesaj(lambda: str(baza.apeleaza(lambda: 7))).mesaj == "7"


def test_limita_totala_a_verificarii():
    inceput = time.perf_counter()
    r = baza.verificare("T", lambda: [baza.apeleaza(time.sleep, 0.2) for _ in range(20)], limita_s=0.7)
    assert not r and "Verificarea a depășit" in r.mesaj
    assert time.perf_counter() - inceput < 2.0


def _intreruperea_invelita_de_biblioteca(pana_la_expirare: bool):
    """Ca torch, când întreruperea cade în codul lui C++: o prinde și aruncă altă excepție, cu textul ei.
    Fără expirare, aceeași excepție apare din alt motiv."""
    try:
        if pana_la_expirare:
            _bucla_simpla()
    except baza.TimpDepasit as intrerupere:
        raise TypeError(f"empty(): argument 'size' failed to unpack the object ({intrerupere})") from None
    raise TypeError("empty(): argument 'size' must be tuple of ints")


def test_intreruperea_invelita_de_o_biblioteca_e_tot_timp_depasit():
    """O întrerupere pe care o bibliotecă o transformă în altă excepție (sau pe care verificarea a
    explicat-o deja ca greșeală a cursantului) ajunge la cursant ca timp depășit; aceeași excepție,
    fără ca limita să fi expirat, rămâne ce era."""
    r = baza.verificare("T", lambda: _intreruperea_invelita_de_biblioteca(True), limita_s=0.3)
    assert not r and "Verificarea a depășit" in r.mesaj and "TypeError" not in r.mesaj, r.mesaj

    def explicata_ca_greseala():
        try:
            _intreruperea_invelita_de_biblioteca(True)
        except TypeError as eroare:
            raise baza.GresealaCursant(f"Funcția ta n-a putut rula: {eroare}") from None

    r = baza.verificare("T", explicata_ca_greseala, limita_s=0.3)
    assert not r and "Verificarea a depășit" in r.mesaj, r.mesaj
    r = _mesaj(lambda: baza.apeleaza(_intreruperea_invelita_de_biblioteca, True, limita_s=0.3))
    assert not r and "n-a terminat" in r.mesaj and torch.is_grad_enabled(), r.mesaj
    r = baza.verificare("T", lambda: _intreruperea_invelita_de_biblioteca(False), limita_s=5)
    assert not r and "TypeError" in r.mesaj and "depășit" not in r.mesaj, r.mesaj


def test_limita_restabileste_modul_gradientului():
    def opreste_gradientul_si_blocheaza():
        torch.set_grad_enabled(False)
        _bucla_simpla()

    r = _mesaj(lambda: baza.apeleaza(opreste_gradientul_si_blocheaza, limita_s=0.2))
    assert not r and torch.is_grad_enabled()


def test_limita_fara_semnal_in_proces_separat():
    """Ramura fără semnale (Windows, alt fir): firul de pază întrerupe bucla."""
    cod = textwrap.dedent(
        """
        import time, sys
        from curs_compilare.exercitii import baza
        def bucla():
            while True:
                pass
        r = baza.verificare("T", lambda: baza.apeleaza(bucla, limita_s=0.3))
        print("REZULTAT", r.corect, "n-a terminat" in r.mesaj, sys.gettrace() is None)
        print("MESAJ", r.mesaj.replace(chr(10), " "), file=sys.stderr)  # dacă pică, se vede de ce
        print(baza.verificare("T", lambda: str(baza.apeleaza(lambda: 7))).mesaj)
        """
    )
    iesire = subprocess.run(
        [sys.executable, "-c", cod], capture_output=True, text=True, timeout=60,
        env={**__import__("os").environ, "CURS_LIMITA_FARA_SEMNAL": "1"},
    )
    assert "REZULTAT False True True" in iesire.stdout, iesire.stdout + iesire.stderr
    assert iesire.stdout.strip().endswith("7")


def test_exceptia_are_tipul_si_linia_cursantului():
    def functia_cursantului(x):
        y = x + 1
        return y @ torch.ones(5)

    r = _mesaj(lambda: baza.apeleaza(functia_cursantului, torch.ones(3)))
    assert not r and "RuntimeError" in r.mesaj and "linia" in r.mesaj and "return y @ torch.ones(5)" in r.mesaj
    assert "Traceback" not in r.mesaj and len(r.mesaj) < 900


def test_notimplemented_din_pytorch_nu_e_stub():
    def pe_meta(x):
        return torch.nonzero(x.to("meta")).cpu()

    r = _mesaj(lambda: baza.apeleaza(pe_meta, torch.ones(3)))
    assert not r and "n-ai scris soluția" not in r.mesaj


def test_eroarea_verificarii_devine_mesaj():
    def verificare_cu_eroare():
        return torch.equal(torch.ones(2, device="meta"), torch.ones(2))

    r = baza.verificare("T", verificare_cu_eroare)
    assert not r and "Nu am putut verifica" in r.mesaj


def test_compara_tensori_strict_si_fara_traceback():
    asteptat = torch.arange(6.0)
    cazuri = {
        "meta": torch.empty(6, device="meta"),
        "float64": asteptat.double(),
        "Forma": asteptat[:5],
        "int64": torch.arange(6),
    }
    for fragment, obtinut in cazuri.items():
        r = _mesaj(lambda o=obtinut: baza.compara_tensori(o, asteptat))
        assert not r and fragment in r.mesaj, (fragment, r.mesaj)
    assert _mesaj(lambda: baza.compara_tensori(asteptat.clone(), asteptat) or "bine")


def test_cere_numar_accepta_numpy_si_respinge_tensori_mari():
    np = pytest.importorskip("numpy")
    assert baza.cere_numar(np.int64(4), "n") == 4.0
    assert baza.cere_numar(np.float32(0.5), "n") == 0.5
    with pytest.raises(baza.GresealaCursant, match="forma"):
        baza.cere_numar(torch.ones(3), "n")


def test_generator_aleator_reproductibil(monkeypatch):
    monkeypatch.setenv("CURS_SEMINTA", "11")
    assert baza.generator_aleator().random() == baza.generator_aleator().random()
    monkeypatch.delenv("CURS_SEMINTA")
    assert baza.generator_aleator().random() != baza.generator_aleator().random()


def test_numar_precis():
    assert baza.numar_precis(12.345678, "s") == "12,3457 s"
    assert baza.numar_precis(0.0) == "0"


def test_elementele_gresite_numarate_cu_toleranta_comparatiei():
    asteptat = torch.full((2720,), 1.0)
    obtinut = asteptat + 1e-6  # în toleranța lui assert_close
    obtinut[7] = 5.0
    r = _mesaj(lambda: baza.compara_tensori(obtinut, asteptat))
    assert not r and "1 din 2 720" in r.mesaj, r.mesaj


def test_functiile_interzise_sunt_prinse_si_prin_alt_nume():
    def raspunsul_gata(x):
        return x * 2

    alias = raspunsul_gata

    def cursant_prin_alias(x):
        return alias(x) + 0

    interzise = {raspunsul_gata: "raspunsul_gata"}
    for functie in (raspunsul_gata, cursant_prin_alias):
        r = _mesaj(lambda f=functie: baza.apeleaza(f, 3, interzise=interzise))
        assert not r and "raspunsul_gata" in r.mesaj and "scrii tu" in r.mesaj, r.mesaj
    assert sys.getprofile() is None
    assert _mesaj(lambda: str(baza.apeleaza(lambda x: x * 2, 3, interzise=interzise))).mesaj == "6"


def test_limita_pune_la_loc_configuratia_dynamo():
    """O întrerupere căzută într-un `config.patch` al bibliotecii îi sare restaurarea."""

    def schimba_si_blocheaza():
        torch._dynamo.config.assume_static_by_default = False
        _bucla_cu_except_gol()

    r = _mesaj(lambda: baza.apeleaza(schimba_si_blocheaza, limita_s=0.2))
    assert not r and torch._dynamo.config.assume_static_by_default is True


def test_goleste_dynamo_si_fara_jurnale_torch():
    import io
    import sys

    from curs_compilare.exercitii import baza

    f = torch.compile(lambda x: x + 1, backend="eager")
    f(torch.ones(2))
    assert torch._dynamo.utils.counters["frames"]["ok"] > 0
    baza.goleste_dynamo()
    assert not torch._dynamo.utils.counters["frames"]
    tampon = io.StringIO()
    with baza.fara_jurnale_torch(tampon):
        import warnings

        warnings.warn("ascuns")
        sys.stderr.write("jurnal\n")
    assert "jurnal" in tampon.getvalue()


# ---------------------------------------------------------------------------------------------
# Excepțiile, spuse în română (`traduce_exceptie`, `explica_exceptie`), pe excepții adevărate
# ---------------------------------------------------------------------------------------------

import re  # noqa: E402

import pytest  # noqa: E402

from curs_compilare.exercitii.baza import (  # noqa: E402
    LUNGIME_ORIGINAL,
    configuratie_dynamo_implicita,
    descrie_garda,
    explica_exceptie,
    traduce_exceptie,
)

#: Cuvinte englezești care n-au ce căuta în explicația în română (în afara codului din backtick-uri
#: și a mesajului original de la sfârșit).
_ENGLEZA = re.compile(
    r"\b(the|is|are not|not|but|got|expected|must|allowed|shape|size|mismatch|invalid|received|combination|"
    r"arguments|close|equal|differen\w*|elements|index|greatest|tensor-likes|scalars|cannot|multiplied|dtype "
    r"mismatch|match|found|device|failed|trace)\b", re.I)


def _exceptie(functie):
    try:
        functie()
    except Exception as eroare:  # noqa: BLE001 — chiar excepția e ce testăm
        return eroare
    raise AssertionError("apelul trebuia să ridice o excepție")


def _verifica_textul(text, *fragmente):
    """Un singur rând; explicația în română, fără cuvinte englezești; originalul la sfârșit, un
    rând de cel mult `LUNGIME_ORIGINAL` caractere; fragmentele (cifrele esențiale) prezente."""
    assert "\n" not in text, text
    explicatie, _, original = text.partition(" Mesajul original: „")
    assert " Mesajul original: „" not in original, text
    if original:
        assert original.endswith("”."), text
        assert len(original[:-2]) <= LUNGIME_ORIGINAL, text
    fara_cod = re.sub(r"`[^`]*`", "", explicatie)
    assert not _ENGLEZA.search(fara_cod), (_ENGLEZA.search(fara_cod).group(0), text)
    for fragment in fragmente:
        assert fragment in text, (fragment, text)
    assert "Traceback" not in text and "expected one of" not in text


@pytest.mark.parametrize(
    "functie, fragmente",
    [
        (lambda: torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, 2.5, 3.0, 7.0])),
         ["2 din 4 elemente", "50%", "diferență absolută: 3, la poziția (3,)", "toleranța: 0,00001",
          "diferență relativă: 0,428571", "toleranța: 0,0000013"]),
        (lambda: torch.testing.assert_close(torch.ones(2, 3), torch.zeros(2, 3), rtol=1e-4, atol=1e-5),
         ["6 din 6 elemente", "100%", "la poziția (0, 0)", "toleranța: 0,0001"]),
        (lambda: torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3])),
         ["nu sunt egale", "1 din 2 elemente", "la poziția (1,)"]),
        (lambda: torch.testing.assert_close(torch.tensor(1.0), torch.tensor(2.0)), ["se aștepta 2, a venit 1"]),
        (lambda: torch.testing.assert_close(torch.ones(2), torch.ones(3)), ["formele diferă", "(2,)", "(3,)"]),
        (lambda: torch.testing.assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64)),
         ["tipurile de date diferă", "torch.float32", "torch.float64"]),
        (lambda: torch.where(torch.randn(3) > 0, torch.randn(3), "zero"),
         ["`where()`", "(Tensor, Tensor, str)"]),
        (lambda: torch.randn(2, 3) @ torch.randn(4, 5), ["2 × 3 și 4 × 5", "coloane al primei (3)", "(4)"]),
        (lambda: torch.randn(3) + torch.randn(4), ["dimensiunea 0: 3 față de 4"]),
        (lambda: torch.randn(6).view(4, 2), ["forma (4, 2)", "6 elemente"]),
        (lambda: torch.randn(2, 3, dtype=torch.float64) @ torch.randn(3, 2), ["torch.float64 și torch.float32"]),
        (lambda: torch.zeros(3, dtype=torch.long).add_(torch.randn(3)), ["torch.float32", "torch.int64"]),
        (lambda: torch.randn(3)[5], ["indicele 5", "dimensiunea 0", "mărimea 3"]),
        (lambda: torch.randn(3).sum(dim=2), ["dimensiunea 2 nu există", "de la -1 la 0"]),
        (lambda: torch.randn(3).item(), ["3 elemente", "`.item()`"]),
        (lambda: torch.stack([torch.randn(2), torch.randn(3)]), ["(2,)", "(3,)", "`torch.stack`"]),
        (lambda: torch.randn(3).to("meta") + torch.randn(3), ["pe cpu", "pe meta"]),
        (lambda: {"default": 1}["eager"], ["cheia 'eager'"]),
        (lambda: (lambda a, b: a)(1), ["lipsește argumentul 'b'"]),
    ],
    ids=["assert_close", "assert_close_tolerante", "assert_close_intregi", "assert_close_scalari",
         "assert_close_forma", "assert_close_dtype", "where", "matmul", "broadcast", "view", "dtype_mm",
         "dtype_pe_loc", "indice", "dimensiune", "item", "stack", "dispozitiv", "cheie", "argument_lipsa"],
)
def test_exceptiile_pytorch_spuse_in_romana(functie, fragmente):
    eroare = _exceptie(functie)
    tradusa = traduce_exceptie(eroare)
    assert tradusa.recunoscuta, tradusa
    assert "\n" not in tradusa.original and len(tradusa.original) <= LUNGIME_ORIGINAL
    _verifica_textul(explica_exceptie(eroare), *fragmente)


def test_lista_de_variante_a_lui_where_nu_ajunge_in_mesaj():
    eroare = _exceptie(lambda: torch.where(torch.randn(3) > 0, torch.randn(3), "zero"))
    assert "expected one of" in str(eroare) and str(eroare).count("\n") > 3  # originalul e lung
    text = explica_exceptie(eroare)
    _verifica_textul(text, "Mesajul original: „where() received an invalid combination of arguments - got "
                           "(Tensor, Tensor, str)”.")
    assert "Number other" not in text and "didn't match" not in text


def test_diferenta_lui_assert_close_nu_e_copiata():
    eroare = _exceptie(lambda: torch.testing.assert_close(torch.arange(10.0), torch.arange(10.0) * 2))
    text = explica_exceptie(eroare)
    _verifica_textul(text, "9 din 10 elemente", "90%", "la poziția (9,)")
    assert "Mismatched" not in text and "Greatest" not in text


try:  # curs_compilare, importat mai sus, pune TRITON_INTERPRET=1 pe o mașină fără GPU
    import triton
    import triton.language as tl
except Exception:  # pragma: no cover - triton lipsește (macOS, Windows)
    triton = tl = None

if triton is not None:

    @triton.jit
    def _kernel_exp(a_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
        pozitii = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        masca = pozitii < n
        a = tl.load(a_ptr + pozitii, mask=masca)
        tl.store(iesire_ptr + pozitii, tl.exp(a), mask=masca)


def _lanseaza_exp(tip):
    dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(10, dtype=tip, device=dispozitiv)
    iesire = torch.empty_like(a)
    _kernel_exp[(1,)](a, iesire, a.numel(), BLOCK=16)
    if torch.cuda.is_available():
        torch.cuda.synchronize()


@pytest.mark.skipif(triton is None, reason="are nevoie de triton")
def test_eroarea_de_tip_din_triton_spusa_in_romana():
    eroare = _exceptie(lambda: _lanseaza_exp(torch.float16))
    _verifica_textul(explica_exceptie(eroare), "float32 sau float64", "a primit float16", "`.to(tl.float32)`",
                     "Mesajul original: „Expected dtype ['fp32', 'fp64'] but got fp16”.")


def _ramificare(x):
    if x.sum() > 0:
        return x
    return -x


def test_intreruperea_grafului_sub_fullgraph_spusa_in_romana():
    torch._dynamo.reset()
    eroare = _exceptie(lambda: torch.compile(_ramificare, fullgraph=True, backend="eager")(torch.randn(3)))
    assert len(str(eroare).splitlines()) > 5  # Dynamo explică pe zeci de rânduri, în engleză
    _verifica_textul(explica_exceptie(eroare), "întrerupere a grafului", "ramificare după valoarea unui tensor",
                     "Mesajul original: „")
    torch._dynamo.reset()


def test_eroarea_pe_tensorii_fake_ai_lui_dynamo_spusa_in_romana():
    torch._dynamo.reset()
    eroare = _exceptie(lambda: torch.compile(lambda t: t @ torch.ones(5, 5), backend="eager")(torch.randn(4)))
    _verifica_textul(explica_exceptie(eroare), "formele nu se potrivesc", "(1, 4) și (5, 5)", "*fake*")
    torch._dynamo.reset()


def test_backendul_care_refuza_graful_spus_in_romana():
    def backend_rupt(gm, exemple):
        raise RuntimeError("backend rupt\n" + "detaliu intern\n" * 20)

    torch._dynamo.reset()
    eroare = _exceptie(lambda: torch.compile(lambda t: t + 1, backend=backend_rupt)(torch.randn(3)))
    _verifica_textul(explica_exceptie(eroare), "backend-ul a refuzat graful", "Mesajul original: „backend rupt”.")
    torch._dynamo.reset()


def _eroare_lunga():
    raise RuntimeError("primul rând " + "x" * 300 + "\nal doilea rând")


def test_mesaj_necunoscut_lung_pastreaza_un_singur_rand_scurt():
    eroare = _exceptie(_eroare_lunga)
    tradusa = traduce_exceptie(eroare)
    assert not tradusa.recunoscuta
    assert len(tradusa.original) <= LUNGIME_ORIGINAL and tradusa.original.endswith("…")
    text = explica_exceptie(eroare)
    _verifica_textul(text, "PyTorch a refuzat o operație", "Mesajul original: „primul rând xxx")
    assert "al doilea rând" not in text.partition("Mesajul original")[2]


def test_apeleaza_spune_exceptia_in_romana_cu_linia():
    def gresita():
        a, b = torch.randn(2, 3), torch.randn(4, 5)
        return a @ b

    r = _mesaj(lambda: apeleaza(gresita))
    assert not r
    _verifica_textul(r.mesaj, "RuntimeError", "la linia", "`return a @ b`", "2 × 3 și 4 × 5")


def test_garda_cazuta_spusa_in_romana():
    torch._dynamo.reset()
    torch._dynamo.utils.guard_failures.clear()
    compilata = torch.compile(lambda x: x * 2, backend="eager", dynamic=False)
    compilata(torch.randn(3))
    compilata(torch.randn(4))
    compilata(torch.randn(4, dtype=torch.float64))
    motive = [str(m) for lista in torch._dynamo.utils.guard_failures.values() for m in lista]
    texte = [descrie_garda(m) for m in motive]
    assert "tensorul `x` are altă mărime pe dimensiunea 0: 4, față de 3 la compilare" in texte, texte
    assert any("tensorul `x` are alt tip de date: torch.float64, față de torch.float32" in t for t in texte), texte
    assert descrie_garda("0/0: s.prag == 0.5     # <string>:6 in forward\nUser stack trace:") == "`s.prag == 0.5`"
    torch._dynamo.reset()


def test_configuratia_dynamo_implicita_si_pusa_la_loc():
    import torch._dynamo.eval_frame as eval_frame
    import torch._inductor.config as config_inductor

    from curs_compilare.inspectie import nume_limita_recompilari

    nume = nume_limita_recompilari()
    vechi = (getattr(torch._dynamo.config, nume), torch._dynamo.config.error_on_recompile,
             config_inductor.fallback_random)
    try:
        setattr(torch._dynamo.config, nume, 64)
        torch._dynamo.config.error_on_recompile = True
        config_inductor.fallback_random = True
        with torch.compiler.set_stance("default"):
            torch.compiler.set_stance("force_eager")
            with pytest.raises(ZeroDivisionError):
                with configuratie_dynamo_implicita(**{"torch._inductor.config.fallback_random": False}):
                    assert getattr(torch._dynamo.config, nume) == 8
                    assert torch._dynamo.config.error_on_recompile is False
                    assert config_inductor.fallback_random is False
                    assert eval_frame._stance.stance == "default"
                    1 / 0
            assert getattr(torch._dynamo.config, nume) == 64
            assert torch._dynamo.config.error_on_recompile is True
            assert config_inductor.fallback_random is True
            assert eval_frame._stance.stance == "force_eager"
    finally:
        setattr(torch._dynamo.config, nume, vechi[0])
        torch._dynamo.config.error_on_recompile = vechi[1]
        config_inductor.fallback_random = vechi[2]


def test_o_intrerupere_intarziata_a_unei_limite_incheiate_are_mesajul_ei():
    """Fără semnale, firul de pază poate programa o a doua întrerupere cât limita dinăuntru o
    tratează pe prima; ea ajunge apoi în limita din afară (a verificării), care nu expirase.
    Mesajul trebuie să fie al limitei dinăuntru, nu „Verificarea a depășit …”."""
    incheiat = baza._Termen(0.3, time.perf_counter() - 1, "funcția ta `bucla`")

    def corp():
        baza._stare["ultimul_declansat"] = incheiat
        raise baza.TimpDepasit  # ca întreruperea din firul de pază: clasa, fără termen

    r = baza.verificare("T", corp)
    assert not r.corect and "n-a terminat în 300 ms" in r.mesaj and "Verificarea a depășit" not in r.mesaj
    assert baza._stare["ultimul_declansat"] is None


def test_cere_functie_spune_ce_a_primit():
    """`cere_functie`, folosită de verificările capitolelor 10–12: None, un obiect care nu se cheamă și o
    semnătură greșită devin mesaje în română; cu `nume`, mesajul spune despre care funcție e vorba."""
    from curs_compilare.exercitii.baza import cere_functie, functie_noua

    cere_functie(lambda a, b: a, "f(a, b)", 2)
    for argumente, cuvinte in (((None, "f(a, b)", 2), ("Ai dat None", "`f(a, b)`")),
                               ((None, "f(a, b)", 2, "politica"), ("Pentru `politica` ai dat None",)),
                               ((3, "f(a, b)", 2), ("am primit int", "fără paranteze")),
                               ((lambda a: a, "f(a, b)", 2), ("semnătura", "2 argumente"))):
        with pytest.raises(GresealaCursant) as eroare:
            cere_functie(*argumente)
        assert all(c in str(eroare.value) for c in cuvinte), str(eroare.value)

    def f(x):
        return x + 1

    copii = functie_noua(f), functie_noua(f)
    assert copii[0].__code__ is not copii[1].__code__ and copii[0].__code__.co_name != f.__code__.co_name
    assert copii[0](1) == 2

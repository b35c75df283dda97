"""Timpul compilării: încălzirea compilatorului, cache-ul gol, compilările comparate în ordine
alternată. Testul de ordine rulează în procese noi, ca un notebook: acolo se vede taxa fixă a
primei compilări, pe care o plătea cândva varianta compilată prima."""

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from curs_compilare import masurare_compilare

RADACINA = Path(__file__).resolve().parent.parent


def test_invelis_nou_are_propriul_obiect_de_cod():
    def f(x):
        return x + 1

    a, b = masurare_compilare.invelis_nou(f, "a"), masurare_compilare.invelis_nou(f, "b")
    assert a.__code__ is not b.__code__ and a(1) == b(1) == 2
    assert a.__name__ == "compilare_a"


def test_timp_compilare_incalzeste_o_data_si_compileaza_din_nou_cu_cache_gol():
    masurare_compilare.incalzeste_compilatorul("cpu")
    assert masurare_compilare.incalzeste_compilatorul("cpu") is None  # o singură dată pe proces

    def lant(x):
        return torch.sin(x) * 3 + 1

    x = torch.randn(64)
    timpi = []
    for i in range(2):
        compilat = torch.compile(masurare_compilare.invelis_nou(lant, f"t{i}"))
        timpi.append(masurare_compilare.timp_compilare(compilat, x))
    # cu un cache gol, a doua compilare a aceluiași cod nu e gratuită
    assert min(timpi) > 0.05, timpi


def test_compara_compilari_da_mediana_si_functiile_gata_de_folosit():
    def lant(x):
        return torch.relu(x * 2) + 1

    x = torch.randn(32)
    rezultat = masurare_compilare.compara_compilari(
        {"eager": (lant, {"backend": "eager"}), "inductor": (lant, {})}, x, repetari=2
    )
    assert set(rezultat.timpi) == set(rezultat.functii) == {"eager", "inductor"}
    assert len(rezultat["inductor"].mediane_runde) == 2
    torch.testing.assert_close(rezultat.functii["inductor"](x), lant(x))
    # backend-ul „eager” nu generează cod: compilează clar mai repede decât Inductor
    assert rezultat.raport("inductor", "eager").mai_rapid


_SCRIPT_ORDINE = """
import itertools, json, sys
import torch
from curs_compilare.capitole import cap04_grafuri_cuda as grafuri_cuda
from curs_compilare.capitole import cap05_reglare as reglare
invers = sys.argv[1] == "invers"
# Pe procesor, reduce-overhead n-are grafuri CUDA: cele două variante ale capitolului 04 sunt aceeași
# compilare, de două ori, deci perechea lor nu spune nimic despre ordine; o compară doar pe GPU.
r04 = (grafuri_cuda.compilari_implicit_si_reduce_overhead(grafuri_cuda.stiva_mica(4, 32, "cuda"),
                                                         torch.randn(1, 32, device="cuda"), invers=invers)
       if torch.cuda.is_available() else None)
r05 = reglare.compilari_pe_moduri(invers=invers, repetari=4)  # 4 repetări: pe procesor, perechea e strânsă

def verdicte(compilari):
    rezultat = {}
    for a, b in itertools.combinations(sorted(compilari.timpi), 2):
        r = compilari.raport(a, b)  # de câte ori compilează b mai repede decât a
        rezultat[f"{a} / {b}"] = "=" if r.in_zgomot else (">" if r.mai_rapid else "<")
    return rezultat

print("REZULTAT " + json.dumps({
    "04": verdicte(r04) if r04 is not None else {}, "05": verdicte(r05),
    "timpi": {k: list(m.mediane_runde) for r in (r04, r05) if r is not None for k, m in r.timpi.items()},
}))
"""


def test_ordinea_variantelor_nu_schimba_clasamentul_compilarilor_04_si_05(tmp_path):
    """Capitolele 04 (§4) și 05 (§3) compară timpi de compilare, cu aceleași funcții ca aici.
    Rulate în procese noi, în ordinea din notebook și în ordine inversă, dau același
    clasament: nicio pereche nu se inversează (o pereche poate ieși „la fel” într-o ordine și
    diferită în cealaltă, dar nu „mai rapidă” într-una și „mai lentă” în cealaltă). Perechea
    capitolului 04 (modul implicit și reduce-overhead) se compară doar pe GPU: pe procesor sunt
    aceeași compilare."""
    rezultate = {}
    for ordine in ("normal", "invers"):
        mediu = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / ordine), CURS_PROFIL="rapid")
        mediu["PYTHONPATH"] = os.pathsep.join(filter(None, [str(RADACINA), mediu.get("PYTHONPATH")]))
        proces = subprocess.run([sys.executable, "-c", _SCRIPT_ORDINE, ordine], env=mediu,
                                capture_output=True, text=True, timeout=900)
        rand = next((r for r in proces.stdout.splitlines() if r.startswith("REZULTAT ")), None)
        assert rand, proces.stderr[-2000:]
        rezultate[ordine] = json.loads(rand.removeprefix("REZULTAT "))
    for capitol in ("04", "05"):
        for pereche, verdict in rezultate["normal"][capitol].items():
            opus = {"<": ">", ">": "<"}.get(verdict)
            assert rezultate["invers"][capitol][pereche] != opus, (capitol, pereche, rezultate)


def test_incalzirea_merge_si_cu_gradientii_opriti(monkeypatch):
    monkeypatch.setattr(masurare_compilare, "_INCALZITE", {})
    with torch.no_grad():
        assert masurare_compilare.incalzeste_compilatorul("cpu") > 0


def test_timp_pana_la_regim_cronometreaza_primele_apeluri_si_da_primul_apel_al_modelului():
    """Trei apeluri, fiecare cronometrat separat; primul apel al modelului amortizării e
    T(1..3) − 2 · timpul pe apel, ca totalul după trei apeluri să fie chiar cel măsurat."""
    import time

    from curs_compilare.amortizare import cost_total

    durate = iter([0.2, 0.05, 0.01, 0.01])

    def lenta_la_inceput():
        time.sleep(next(durate))

    pornire = masurare_compilare.timp_pana_la_regim(lenta_la_inceput)
    assert len(pornire.apeluri_s) == masurare_compilare.APELURI_PANA_LA_REGIM == 3
    assert pornire.apeluri_s[0] >= 0.2 and pornire.apeluri_s[1] >= 0.05 and pornire.apeluri_s[2] < pornire.apeluri_s[0]
    assert pornire.total_s == sum(pornire.apeluri_s)
    prima = pornire.prima_s(0.01)
    assert prima == pornire.total_s - 2 * 0.01
    assert cost_total(prima, 0.01, 3) == pornire.total_s
    assert masurare_compilare.PornireCompilata((1.0,)).prima_s(0.5) == 1.0


def test_timp_pana_la_regim_pe_o_functie_compilata():
    def lant(x):
        return torch.cos(x) * 2 - 1

    x = torch.randn(32)
    compilat = torch.compile(masurare_compilare.invelis_nou(lant, "regim"))
    pornire = masurare_compilare.timp_pana_la_regim(compilat, x, apeluri=2)
    assert len(pornire.apeluri_s) == 2 and pornire.apeluri_s[0] > pornire.apeluri_s[1]  # primul compilează

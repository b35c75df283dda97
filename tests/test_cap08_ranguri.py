"""Pornirea rangurilor (`cap08_ranguri.ruleaza_pe_ranguri`): procesele pornesc, rezultatele se
adună, o funcție definită ca într-un notebook (în `__main__`) ajunge în ranguri, iar un rang
care aruncă o excepție, care se oprește singur sau care se blochează oprește tot, cu o explicație
în română și fără procese rămase în urmă."""

import os
import textwrap
import time

import pytest
import torch
import torch.distributed as dist

from curs_compilare.capitole import cap08_ranguri
from curs_compilare.capitole.cap08_ranguri import EroareRanguri, alege_backend, ruleaza_pe_ranguri

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed cu gloo lipsește")


def _copii() -> set[int]:
    """Procesele copil în viață ale acestui proces (sub pytest-xdist sunt și altele, de exemplu
    kernel-urile Jupyter ale notebook-urilor testate în același proces), fără procesul ajutor al
    rangurilor, care rămâne pornit între apeluri (rangurile copiate din el se numără)."""
    psutil = pytest.importorskip("psutil")
    ajutor = cap08_ranguri._AJUTOR.proces.pid if cap08_ranguri._AJUTOR is not None else None
    return {c.pid for c in psutil.Process().children(recursive=True)
            if c.status() != psutil.STATUS_ZOMBIE and c.pid != ajutor}


@pytest.fixture
def fara_ranguri_ramase():
    """După test, niciun proces pornit în timpul lui n-a rămas în viață (rangurile oprite)."""
    inainte = _copii()
    verifica = lambda: _copii() - inainte == set()  # noqa: E731
    yield verifica


def _suma_rangurilor():
    t = torch.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(t)
    print(f"suma: {t.item():g}")
    return {"rang": dist.get_rank(), "lume": dist.get_world_size(), "suma": t}


def test_rangurile_pornesc_si_intorc_valorile(capsys):
    rezultate = ruleaza_pe_ranguri(_suma_rangurilor, ranguri=2, backend="gloo", limita_s=90)
    assert [r["rang"] for r in rezultate] == [0, 1]
    assert all(r["lume"] == 2 and r["suma"].item() == 3.0 for r in rezultate)
    iesire = capsys.readouterr().out
    assert "[rangul 0] suma: 3" in iesire and "[rangul 1] suma: 3" in iesire


def _din_notebook(sursa: str, nume: str):
    """O funcție definită ca într-o celulă de notebook: în modulul `__main__` al kernel-ului,
    pe care un proces pornit cu spawn nu-l poate importa."""
    spatiu = {"__name__": "__main__"}
    exec(textwrap.dedent(sursa), spatiu)
    functie = spatiu[nume]
    assert functie.__module__ == "__main__"
    return functie


def test_o_functie_din_notebook_cu_clasa_si_constanta_ei_ajunge_in_ranguri():
    functie = _din_notebook("""
        import torch
        import torch.distributed as dist

        INMULTITOR = 7

        class Strat(torch.nn.Module):
            def forward(self, x):
                return x * INMULTITOR

        def pas(deplasare):
            y = Strat()(torch.ones(2)) + dist.get_rank() + deplasare
            dist.all_reduce(y)
            return y
    """, "pas")
    rezultate = ruleaza_pe_ranguri(functie, 0.5, ranguri=2, backend="gloo", arata_iesirea=False, limita_s=90)
    # (7 + 0 + 0,5) + (7 + 1 + 0,5) = 16, pe fiecare rang
    assert all(torch.equal(r, torch.full((2,), 16.0)) for r in rezultate)


def _rangul_1_arunca():
    if dist.get_rank() == 1:
        raise ValueError("forma greșită: 3 în loc de 4")
    t = torch.ones(1)
    dist.all_reduce(t)  # rangul 0 așteaptă aici un rang care nu mai vine
    return t


def test_un_rang_care_arunca_opreste_tot_cu_o_explicatie(fara_ranguri_ramase):
    start = time.monotonic()
    with pytest.raises(EroareRanguri) as info:
        ruleaza_pe_ranguri(_rangul_1_arunca, ranguri=2, backend="gloo", limita_s=90, gratie_s=3,
                           arata_iesirea=False)
    durata = time.monotonic() - start
    mesaj = str(info.value)
    stari = {s.rang: s for s in info.value.stari}
    assert stari[1].fel == "eroare" and stari[1].exceptie == "ValueError"
    assert "rangul 1 a aruncat ValueError: forma greșită: 3 în loc de 4" in mesaj
    # rangul 0 e fie oprit de noi cât aștepta, fie căzut singur în all_reduce (gloo observă că
    # celălalt proces a dispărut); oricum, nu se termină „gata”, iar apelul nu așteaptă limita
    assert stari[0].fel in ("așteptare", "eroare")
    assert durata < 60
    assert fara_ranguri_ramase()  # niciun rang rămas pornit
    assert "Traceback" not in mesaj.splitlines()[0]


def _rangul_0_se_blocheaza():
    if dist.get_rank() == 0:
        time.sleep(600)
    return dist.get_rank()


def test_un_rang_blocat_e_oprit_la_limita(fara_ranguri_ramase):
    start = time.monotonic()
    with pytest.raises(EroareRanguri) as info:
        ruleaza_pe_ranguri(_rangul_0_se_blocheaza, ranguri=2, backend="gloo", limita_s=15, arata_iesirea=False)
    assert time.monotonic() - start < 45
    stari = {s.rang: s for s in info.value.stari}
    assert stari[0].fel == "blocat" and stari[1].fel == "gata"
    assert fara_ranguri_ramase()
    assert "rangul 0 n-a terminat" in str(info.value) and "operație colectivă" in str(info.value)


def _rangul_1_cade():
    if dist.get_rank() == 1:
        print("rangul 1 pleacă")
        os._exit(3)
    return "gata"


def test_un_rang_care_cade_fara_rezultat_e_spus_cu_codul_lui(fara_ranguri_ramase):
    with pytest.raises(EroareRanguri) as info:
        ruleaza_pe_ranguri(_rangul_1_cade, ranguri=2, backend="gloo", limita_s=60, gratie_s=3, arata_iesirea=False)
    stari = {s.rang: s for s in info.value.stari}
    assert stari[1].fel == "oprit" and stari[1].cod_iesire == 3
    assert fara_ranguri_ramase()
    assert "codul de ieșire 3" in str(info.value)
    assert "rangul 1 pleacă" in stari[1].iesire and "rangul 1 pleacă" in str(info.value)


def test_argumentele_care_nu_trec_in_alt_proces_sunt_refuzate_inainte_de_pornire():
    import threading

    with pytest.raises(TypeError, match="nu se pot trimite altor procese"):
        ruleaza_pe_ranguri(_suma_rangurilor, threading.Lock(), ranguri=2, backend="gloo")


def test_backendul_pe_o_masina_fara_destule_gpu_uri_e_gloo(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert alege_backend(2) == "gloo"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert alege_backend(2) == "gloo"


def test_dintr_un_script_fara_garda_main(tmp_path):
    """Un script care cheamă unealta direct, fără `if __name__ == "__main__":`: cu
    `multiprocessing` (spawn), fiecare rang ar reexecuta scriptul; aici rangurile pornesc din
    modulul cursului, deci scriptul rulează o singură dată."""
    import subprocess
    import sys

    from curs_compilare.capitole import cap08_ranguri

    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import torch, torch.distributed as dist
        from curs_compilare.capitole.cap08_ranguri import ruleaza_pe_ranguri
        print("scriptul pornește")
        def rang():
            return dist.get_rank() * 10
        print("REZULTAT", ruleaza_pe_ranguri(rang, ranguri=2, backend="gloo", limita_s=90, arata_iesirea=False))
        from curs_compilare.capitole import cap08_ranguri
        print("AJUTOR", cap08_ranguri._AJUTOR.proces.pid if cap08_ranguri._AJUTOR else None)
    """))
    radacina = os.path.dirname(os.path.dirname(os.path.abspath(cap08_ranguri.__file__)))
    mediu = {**os.environ, "PYTHONPATH": os.path.dirname(radacina)}
    # -X dev: avertismentele despre procese și fișiere lăsate deschise la ieșire se văd
    iesire = subprocess.run([sys.executable, "-X", "dev", str(script)], capture_output=True, text=True, timeout=120,
                            env=mediu)
    assert "REZULTAT [0, 10]" in iesire.stdout, iesire.stdout + iesire.stderr
    assert iesire.stdout.count("scriptul pornește") == 1
    # Ajutorul rangurilor (dacă a existat) s-a oprit odată cu scriptul, fără resurse lăsate deschise.
    assert "ResourceWarning" not in iesire.stderr, iesire.stderr[-2000:]
    ajutor = iesire.stdout.split("AJUTOR")[1].split()[0]
    if ajutor != "None":
        psutil = pytest.importorskip("psutil")
        assert not psutil.pid_exists(int(ajutor)) or psutil.Process(int(ajutor)).status() == psutil.STATUS_ZOMBIE


def test_in_rangurile_pornite_nu_porneste_procese_si_aduna_valorile_rangurilor(monkeypatch):
    """`rangurile_deja_pornite(modul)`: cât ține blocul, `modul.ruleaza_pe_ranguri` rulează funcția chiar
    în rangul de față și adună valorile rangurilor (aici, un grup de două ranguri prefăcut), fără niciun
    proces nou; după bloc (și după o excepție), modulul are din nou pornirea adevărată."""
    import types

    monkeypatch.setattr(dist, "get_world_size", lambda: 2)

    def aduna(valori, valoare):  # rangul celălalt a întors valoarea lui plus 1
        valori[:] = [valoare, valoare + 1]

    monkeypatch.setattr(dist, "all_gather_object", aduna)
    modul = types.SimpleNamespace(ruleaza_pe_ranguri=ruleaza_pe_ranguri)
    inainte = _copii()
    with cap08_ranguri.rangurile_deja_pornite(modul):
        valori = modul.ruleaza_pe_ranguri(lambda x: torch.tensor([x]), 3.0, ranguri=2, limita_s=1, backend="gloo")
        with pytest.raises(ValueError, match="cere 4 ranguri"):
            modul.ruleaza_pe_ranguri(lambda: 0, ranguri=4)
    assert [v.tolist() for v in valori] == [[3.0], [4.0]] and _copii() - inainte == set()
    assert modul.ruleaza_pe_ranguri is ruleaza_pe_ranguri
    with pytest.raises(RuntimeError), cap08_ranguri.rangurile_deja_pornite(modul):
        raise RuntimeError("oprit în bloc")
    assert modul.ruleaza_pe_ranguri is ruleaza_pe_ranguri


# ---------------------------------------------------------------------------------------------
# Procesul ajutor: rangurile copiate dintr-un proces cu importurile făcute
# ---------------------------------------------------------------------------------------------

def _despre_rang():
    import sys

    return {"pid": os.getpid(), "parinte": os.getppid(), "pytest": os.environ.get("PYTEST_CURRENT_TEST"),
            "pythonpath": os.environ.get("PYTHONPATH", ""), "dosar": os.getcwd(), "cale": list(sys.path),
            "dynamo_importat": "torch._dynamo" in sys.modules}


def test_rangurile_sunt_copii_ale_ajutorului_refolosit_cu_mediul_si_dosarul_clipei(tmp_path, monkeypatch):
    """Fără GPU, rangurile sunt copii ale unui singur proces ajutor (importurile lui sunt gata: Dynamo
    e deja încărcat), refolosit de la o pornire la alta; fiecare rang vede mediul, dosarul curent și
    `sys.path` din clipa pornirii, iar `PYTHONPATH` ca un rang pornit drept interpretor nou."""
    if cap08_ranguri._ajutorul("gloo") is None:
        pytest.skip("pe această mașină rangurile pornesc ca interpretoare noi (GPU sau fără fork)")
    ajutor = cap08_ranguri._AJUTOR.proces.pid
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "module_mele"))
    prima = ruleaza_pe_ranguri(_despre_rang, ranguri=2, backend="gloo", limita_s=90)
    assert {r["parinte"] for r in prima} == {ajutor} and len({r["pid"] for r in prima}) == 2
    assert all(r["dosar"] == str(tmp_path) and r["dynamo_importat"] for r in prima)
    assert all(str(tmp_path / "module_mele") in r["cale"] for r in prima)
    assert all(str(tmp_path / "module_mele") in r["pythonpath"].split(os.pathsep) for r in prima)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "alt test")  # nu contează pentru ajutor, dar rangul o vede
    a_doua = ruleaza_pe_ranguri(_despre_rang, ranguri=2, backend="gloo", limita_s=90)
    assert {r["parinte"] for r in a_doua} == {ajutor}  # același ajutor, ranguri noi
    assert not {r["pid"] for r in a_doua} & {r["pid"] for r in prima}
    assert all(r["pytest"] == "alt test" for r in a_doua)


class _AjutorPrefacut:
    """Locul lui `_Ajutor` în testul de mai jos: nu pornește niciun proces."""

    def __init__(self, mediu):
        self.mediu, self.oprit, self.mort = mediu, False, False

    def viu(self):
        return not self.mort

    def opreste(self):
        self.oprit = True


def test_ajutorul_e_refolosit_inlocuit_sau_ocolit(monkeypatch):
    """Când e refolosit ajutorul, când e înlocuit (mediul schimbat, ajutorul oprit din afară) și
    când rangurile pornesc ca interpretoare noi (NCCL, GPU, alt sistem, variabila de mediu)."""
    monkeypatch.setattr(cap08_ranguri, "_Ajutor", _AjutorPrefacut)
    monkeypatch.setattr(cap08_ranguri, "_AJUTOR", None)
    monkeypatch.delenv(cap08_ranguri.VARIABILA_FARA_AJUTOR, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    primul = cap08_ranguri._ajutorul("gloo")
    assert isinstance(primul, _AjutorPrefacut) and cap08_ranguri._ajutorul("gloo") is primul
    for variabila in ("PYTEST_CURRENT_TEST", "PYTHONPATH"):
        monkeypatch.setenv(variabila, "altceva")
        assert cap08_ranguri._ajutorul("gloo") is primul
    monkeypatch.setenv("CURS_TEST_AJUTOR", "alt mediu")
    al_doilea = cap08_ranguri._ajutorul("gloo")
    assert al_doilea is not primul and primul.oprit and al_doilea.mediu["CURS_TEST_AJUTOR"] == "alt mediu"
    al_doilea.mort = True
    al_treilea = cap08_ranguri._ajutorul("gloo")
    assert al_treilea is not al_doilea and cap08_ranguri._ajutorul("gloo") is al_treilea
    assert cap08_ranguri._ajutorul("nccl") is None
    monkeypatch.setenv(cap08_ranguri.VARIABILA_FARA_AJUTOR, "1")
    assert cap08_ranguri._ajutorul("gloo") is None
    monkeypatch.delenv(cap08_ranguri.VARIABILA_FARA_AJUTOR)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert cap08_ranguri._ajutorul("gloo") is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(cap08_ranguri.sys, "platform", "darwin")
    assert cap08_ranguri._ajutorul("gloo") is None


def test_cand_ajutorul_nu_raspunde_rangurile_pornesc_ca_interpretoare_noi(monkeypatch):
    """Un ajutor care nu răspunde e oprit, iar rangurile pornesc ca procese noi, copii ale
    notebook-ului, în care Dynamo nu e încă importat; rezultatul e același."""
    if cap08_ranguri._ajutorul("gloo") is None:
        pytest.skip("pe această mașină rangurile pornesc ca interpretoare noi (GPU sau fără fork)")

    def nu_raspunde(self, *argumente):
        raise RuntimeError("procesul ajutor nu a răspuns")

    monkeypatch.setattr(cap08_ranguri._Ajutor, "porneste", nu_raspunde)
    ajutor = cap08_ranguri._AJUTOR
    rezultate = ruleaza_pe_ranguri(_despre_rang, ranguri=2, backend="gloo", limita_s=90)
    assert [r["parinte"] for r in rezultate] == [os.getpid()] * 2
    assert not any(r["dynamo_importat"] for r in rezultate)
    assert not ajutor.viu() and cap08_ranguri._AJUTOR is None  # oprit, nu lăsat în urmă


def test_ajutorul_iese_cand_notebook_ul_il_lasa_si_isi_opreste_rangurile(tmp_path):
    """Când intrarea ajutorului se închide (procesul care l-a pornit s-a oprit), ajutorul își oprește
    rangurile încă în viață și iese; codul de ieșire al rangului oprit ajunge în fișierul lui."""
    ajutor = cap08_ranguri._Ajutor(cap08_ranguri._mediul_pentru_ajutor())
    try:
        functie = cap08_ranguri._serializeaza((time.sleep, (300,)))
        (tmp_path / "functie.pkl").write_bytes(functie)
        # un rang dintr-o lume de 2, al cărui partener nu vine niciodată: rămâne în init_process_group
        adresa = f"tcp://127.0.0.1:{cap08_ranguri._port_liber()}"
        rang = ajutor.porneste(["0", "2", adresa, "gloo", str(tmp_path), "300", "1"], tmp_path / "iesire_0.txt",
                               tmp_path / "cod_0.txt", dict(os.environ))
        time.sleep(0.5)
        assert rang.poll() is None
    finally:
        ajutor.opreste()
    assert not ajutor.viu()
    assert rang.wait(timeout=10) == -9


def test_rangul_al_carui_ajutor_s_a_oprit_nu_asteapta_pana_la_limita(tmp_path):
    """Un rang copiat din ajutor, terminat după ce ajutorul s-a oprit (nimeni nu-i mai scrie codul de
    ieșire), e văzut terminat, cu un cod necunoscut, în loc să pară blocat până la limită. Cât
    ajutorul trăiește, un rang dispărut fără cod scris încă (cules, dar cu codul nescris) nu e terminat."""
    import subprocess
    import types

    dormitor = subprocess.Popen(["sleep", "0.2"])
    ajutor = types.SimpleNamespace(viu=lambda: False)
    rang = cap08_ranguri._RangDinAjutor(dormitor.pid, tmp_path / "cod_0.txt", ajutor)
    assert rang.poll() is None
    dormitor.wait()  # procesul nu mai există, iar codul lui nu l-a scris nimeni
    viu = cap08_ranguri._RangDinAjutor(dormitor.pid, tmp_path / "cod_0.txt", types.SimpleNamespace(viu=lambda: True))
    assert viu.poll() is None
    assert rang.wait(timeout=5) == cap08_ranguri.COD_NECUNOSCUT
    (tmp_path / "cod_1.txt").write_text("3")
    assert cap08_ranguri._RangDinAjutor(dormitor.pid, tmp_path / "cod_1.txt", ajutor).poll() == 3

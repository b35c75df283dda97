"""Uneltele capitolului 08, față de ce măsoară în ranguri: regula grafurilor lui DDPOptimizer
(`grafuri_prezise`) dă numărul măsurat de grafuri AOTAutograd, dintr-un singur graf al lui Dynamo;
`optimize_ddp=False` nu suprapune niciun all-reduce cu calculul înapoi, iar modul eager și
DDPOptimizer da, iar propozițiile tipărite urmează numerele; rangurile rămân identice; compilarea
lui `DDP(Sequential)` nu capturează nimic, a unui modul scris de noi da, iar `DDP(torch.compile(model))`
e tăiat de DDPOptimizer ca `torch.compile(DDP(model))`; `python_reducer` pune câte un all-reduce pe
parametru în graful pasului înapoi, iar reductorul C++ refuză autograd-ul compilat; FSDP2
fragmentează greutățile, iar primul bloc se recompilează doar fără strat de intrare. Plus regula pe
cazuri scrise de mână, graficele și textul tipărit: româna întâi, mesajul lui PyTorch după."""

import functools

import pytest
import torch
import torch.distributed as dist

from curs_compilare.capitole import cap08_distribuit as distribuit

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed cu gloo lipsește")

MIB = 2**20


def test_regula_pe_cazuri_scrise_de_mana():
    assert distribuit.grafuri_prezise([MIB] * 4, 1) == 4
    assert distribuit.grafuri_prezise([MIB] * 4, 25) == 2  # prima găleată se închide la 1 MiB
    assert distribuit.grafuri_prezise([1000] * 10, 25) == 1
    assert distribuit.grafuri_prezise([0, 3 * MIB, 0], 2) == 1  # fără găleată goală la început
    assert distribuit.grafuri_prezise([MIB - 4, 4, MIB], 1) == 2
    with pytest.raises(ValueError, match="cel puțin 1 MiB"):
        distribuit.grafuri_prezise([MIB], 0.5)
    octeti = distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, 8))
    assert octeti == [(512 * 512 + 512) * 4] * 8 + [(512 + 1) * 4]


BLOCURI_PLASARE = 3  # 3 blocuri în loc de 8, ca testul să fie ieftin


@pytest.fixture(scope="module")
def din_ranguri():
    """Experimentele testelor, într-o singură pornire a rangurilor (procesele noi, importurile și prima
    compilare se plătesc o singură dată): măsurătorile DDP, plasările, reductorul Python și două variante FSDP2."""
    return distribuit.intr_o_singura_pornire({
        "ddp": functools.partial(
            distribuit.masoara_ddp,
            [(True, 0.5), (True, 1), (True, 2), (True, 4), (True, 25), (distribuit.MOD_EAGER, 1), (False, 1)],
            latime=512, blocuri=8, pasi=2),
        "plasari": functools.partial(distribuit.grafuri_sub_ddp, latime=512, blocuri=BLOCURI_PLASARE, galeata_mb=1),
        "reductor": functools.partial(distribuit.reductor_python, latime=64, blocuri=2, pasi=2),
        "fsdp": functools.partial(distribuit.masoara_fsdp_variante, {"simplu": {}, "intrare": {"intrare": True}},
                                  latime=32, blocuri=3),
    })


@pytest.fixture(scope="module")
def masuratori(din_ranguri):
    return din_ranguri["ddp"]


def test_grafurile_masurate_sunt_cele_prezise(masuratori):
    octeti = distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, 8))
    cu_ddpoptimizer = [m for m in masuratori if m.mod is True and not m.eroare]
    assert [m.grafuri for m in cu_ddpoptimizer] == [distribuit.grafuri_prezise(octeti, m.galeata_mb) for m in cu_ddpoptimizer]
    assert [m.grafuri for m in cu_ddpoptimizer] == [8, 5, 3, 2]
    # Cele două numărători: Dynamo capturează un graf, DDPOptimizer îl taie în grafuri AOTAutograd.
    assert all(m.grafuri_dynamo == 1 for m in masuratori if m.mod in (True, False) and not m.eroare)
    assert [(m.grafuri_dynamo, m.grafuri) for m in masuratori if m.mod == distribuit.MOD_EAGER] == [(0, 0)]
    refuzata = masuratori[0]
    assert refuzata.eroare and "First bucket" in refuzata.eroare


def test_suprapunerea_si_rangurile_identice(masuratori):
    pe_mod = {m.mod: m for m in masuratori if m.galeata_mb == 1}
    assert pe_mod[False].grafuri == 1 and all(s == 0 for s in pe_mod[False].suprapuse)
    for mod in (distribuit.MOD_EAGER, True):
        m = pe_mod[mod]
        assert m.all_reduce[-1] >= 8 and m.suprapuse[-1] >= m.all_reduce[-1] // 2, (mod, m.suprapuse, m.all_reduce)
        assert m.momente_ms["sfarsit_calcul"] <= m.momente_ms["intoarcere"]
        # cele de după calcul duc gradienți ai primului bloc (gata ultimii)
        assert m.galeti_dupa_calcul() and all("blocuri.0.liniar" in g for g in m.galeti_dupa_calcul())
        assert len(m.galeti_dupa_calcul()) == m.all_reduce[-1] - m.suprapuse[-1]
    assert all(m.ranguri_identice for m in masuratori if not m.eroare)


def test_propozitiile_suprapunerii_urmeaza_numerele(masuratori, capsys):
    """Propoziția de sub graficul suprapunerii (celula de după 2.1) e calculată: câte all-reduce-uri
    au pornit în timpul calculului și câte după el sunt chiar cele măsurate."""
    from curs_compilare import cifre

    alese = [m for m in masuratori if m.galeata_mb == 1 and not m.eroare]
    distribuit.arata_suprapunerea(alese)
    randuri = capsys.readouterr().out.strip().splitlines()
    assert len(randuri) == len(alese)
    for m, rand in zip(alese, randuri):
        n, inainte = m.all_reduce[-1], m.suprapuse[-1]
        assert rand.startswith(f"{m.nume}, bucket_cap_mb=1:"), rand
        if inainte == 0:
            assert "niciunul" in rand and f"cele {n} all-reduce-uri" in rand, rand
        else:
            assert f"{inainte} din {n} all-reduce-uri" in rand and f", {n - inainte} după el" in rand, rand
            assert "primului strat (blocuri.0.liniar)" in rand, rand
        assert not cifre.probleme_de_format(rand), cifre.probleme_de_format(rand)


def test_graficele_si_tabelul(masuratori, capsys, tmp_path, monkeypatch):
    import json

    import matplotlib

    matplotlib.use("Agg")
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv("CURS_FISIER_CIFRE", str(fisier))
    distribuit.arata_ddp(masuratori)
    tabel = capsys.readouterr().out
    assert "refuzat" in tabel and "din" in tabel
    assert "Dynamo" in tabel and "AOTAutograd" in tabel
    # Refuzul: întâi propoziția în română, apoi mesajul lui PyTorch, întreg (nu tăiat la mijloc).
    refuz = next(r for r in tabel.splitlines() if "First bucket" in r)
    assert refuz.startswith("DDPOptimizer a refuzat găleata de 0,5 MiB: prima lui găleată are mereu 1 MiB"), refuz
    assert refuz.index("Mesajul lui PyTorch") < refuz.index("First bucket") and refuz.endswith("”."), refuz
    assert all("First bucket" not in r for r in tabel.splitlines() if r.startswith("compilat"))
    cifre = {json.loads(r)["cheie"]: json.loads(r)["valoare"] for r in fisier.read_text(encoding="utf-8").splitlines()}
    assert cifre["08.grafuri_ddpoptimizer_1mb"] == 8 and cifre["08.suprapuse_un_graf_1mb"] == 0
    octeti = distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, 8))
    assert distribuit.grafic_grafuri_pe_galeata(masuratori, octeti).axes
    assert distribuit.grafic_suprapunere(masuratori).axes
    monkeypatch.setenv("CURS_FARA_WIDGETURI", "1")
    distribuit.exploreaza_galetile(masuratori, octeti)
    assert "bucket_cap_mb=1" in capsys.readouterr().out


def test_plasarea_compilarii(din_ranguri, capsys):
    """Tabelul plasărilor, cu lățimea capitolului și găleți de 1 MiB (3 blocuri în loc de 8, ca
    testul să fie ieftin): `DDP(torch.compile(model))` nu scapă de DDPOptimizer. DDP marchează
    modulul activ cât cheamă modelul (`_inside_ddp_forward`), iar Dynamo folosește DDPOptimizer
    cât există un DDP activ (`torch/_dynamo/convert_frame.py`)."""
    blocuri = BLOCURI_PLASARE
    rezultate = din_ranguri["plasari"]
    assert set(rezultate) == set(distribuit.VARIANTE_PLASARE)
    pe_galeti = {
        "Sequential": distribuit.grafuri_prezise(distribuit.octeti_pe_strat(distribuit._secventa(512)), 1),
        "ReteaBlocuri": distribuit.grafuri_prezise(distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, blocuri)), 1),
    }
    assert pe_galeti == {"Sequential": 2, "ReteaBlocuri": blocuri}
    nimic = rezultate["Sequential: torch.compile(DDP(model))"]
    assert nimic["grafuri_dynamo"] == 0 and nimic["grafuri"] == 0
    for varianta in ("Sequential: DDP(torch.compile(model))", "ReteaBlocuri: torch.compile(DDP(model))",
                     "ReteaBlocuri: model.compile(); DDP(model)", "ReteaBlocuri: DDP(torch.compile(model))"):
        model = varianta.split(":")[0]
        assert (rezultate[varianta]["grafuri_dynamo"], rezultate[varianta]["grafuri"]) == (1, pe_galeti[model]), varianta
    fara = rezultate["ReteaBlocuri: DDP(torch.compile(model))" + distribuit.FARA_DDPOPTIMIZER]
    assert (fara["grafuri_dynamo"], fara["grafuri"]) == (1, 1)
    # Variația între versiuni măsurată pe procesor: niciun graf al lui Dynamo cu torch 2.13.0, unul cu 2.14.1.
    versiune = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if versiune >= (2, 14):
        assert rezultate["Sequential: model.compile(); DDP(model)"]["grafuri_dynamo"] == 1
        assert rezultate["Sequential: model.compile(); DDP(model)"]["grafuri"] == pe_galeti["Sequential"]
    # Tabelul și propozițiile tipărite: ambele numărători și o comparație care urmează numerele.
    distribuit.arata_plasari(rezultate)
    iesire = capsys.readouterr().out
    assert "Dynamo" in iesire and "AOTAutograd" in iesire
    assert ("ReteaBlocuri: DDP(torch.compile(model)): Dynamo a capturat 1 graf, pe care DDPOptimizer "
            f"l-a tăiat în {blocuri} grafuri AOTAutograd.") in iesire
    assert f"ReteaBlocuri: DDP(torch.compile(model)) dă {blocuri} grafuri AOTAutograd, la fel ca torch.compile(DDP(model)) ({blocuri})." in iesire
    assert "Sequential: torch.compile(DDP(model)): Dynamo n-a capturat niciun graf" in iesire
    assert "[optimize_ddp=False]: Dynamo a capturat 1 graf, netăiat: 1 graf AOTAutograd." in iesire


def test_reductorul_python_pune_all_reduce_in_graful_inapoi(din_ranguri, capsys):
    rezultat = din_ranguri["reductor"]
    assert rezultat["grafuri"][0]["all_reduce"] == 0 and rezultat["grafuri"][0]["faza"] == "înainte"
    assert rezultat["capturi_inapoi"] >= 1
    inapoi = [g for g in rezultat["grafuri"] if g["faza"] == "înapoi"]
    assert any(g["all_reduce"] == rezultat["parametri"] for g in inapoi)
    # Pe procesor (aot_eager) graful rulează cum e scris: fiecare all-reduce e așteptat imediat,
    # printre operațiile de calcul ale pasului înapoi.
    for graf in inapoi:
        assert graf["asteptari_imediate"] == graf["all_reduce"] and graf["calcul_dupa_primul"] > 0, graf
    # Reductorul C++ nu merge cu autograd-ul compilat (de aceea există python_reducer).
    assert "C++ DDP Reducer" in rezultat["refuz_reductor_cpp"]
    distribuit.arata_reductorul(rezultat)
    iesire = capsys.readouterr().out
    refuz = next(r for r in iesire.splitlines() if "C++ DDP Reducer" in r)
    assert refuz.startswith("Autograd-ul compilat cu reductorul C++ al lui DDP") and refuz.index("Mesajul lui PyTorch") < refuz.index("Compiled")
    assert "Fiecare all-reduce e așteptat chiar de operația următoare" in iesire


def test_fsdp_fragmenteaza_si_primul_bloc_se_recompileaza_doar_fara_intrare(din_ranguri):
    # Două variante, în aceeași pornire cu celelalte experimente (în capitol, trei, într-o pornire a lor).
    variante = din_ranguri["fsdp"]
    fara = variante["simplu"]
    assert [r["tip_parametru"] for r in fara] == ["DTensor", "DTensor"]
    assert fara[0]["forma_intreaga"] == (32, 32) and fara[0]["forma_locala"] == (16, 32)
    assert fara[0]["memorie_parametri"] * 2 == pytest.approx(fara[0]["memorie_model"], rel=0.02)
    assert fara[0]["compilari"] == 2 and any("requires_grad" in m for m in fara[0]["motive"])
    # Garda căzută, tipărită întâi în română: intrarea primului bloc n-avea gradient.
    explicatie = distribuit.explica_garda(fara[0]["motive"][0])
    assert explicatie.startswith("intrarea x a fost compilată fără requires_grad, iar acum vine cu el"), explicatie
    # A doua variantă, în aceleași procese, după celelalte experimente, pornește de la un Dynamo gol:
    # nicio recompilare moștenită.
    cu_intrare = variante["intrare"]
    assert cu_intrare[0]["compilari"] == 1 and cu_intrare[0]["motive"] == []
    assert cu_intrare[0]["intreruperi"] == 0
    assert list(distribuit.VARIANTE_FSDP) == ["simplu", "intrare", "fullgraph"]


def test_masoara_fsdp_e_o_singura_varianta(monkeypatch):
    cereri = []

    def variante_false(variante, **optiuni):
        cereri.append((variante, optiuni))
        return {nume: ["rangul 0", "rangul 1"] for nume in variante}

    monkeypatch.setattr(distribuit, "masoara_fsdp_variante", variante_false)
    assert distribuit.masoara_fsdp(fullgraph=True, latime=32, blocuri=3) == ["rangul 0", "rangul 1"]
    [(variante, optiuni)] = cereri
    assert list(variante.values()) == [{"intrare": False, "fullgraph": True}]
    assert optiuni["latime"] == 32 and optiuni["blocuri"] == 3


def test_descrierea_masinii():
    text = distribuit.descrie_masina(2)
    assert ("gloo" in text) != ("NCCL" in text)


def test_propozitiile_pe_cazuri_scrise_de_mana(capsys):
    """Propozițiile tipărite urmează numerele și pe cazurile pe care modelul capitolului nu le
    atinge (fără ranguri): acordul cu numeralul, „le-a tăiat”, o tăietură fără DDPOptimizer."""
    from curs_compilare import cifre

    plasari = {
        "ReteaBlocuri: torch.compile(DDP(model))": {"grafuri_dynamo": 2, "grafuri": 21, "operatii": 9, "intreruperi": 1},
        "ReteaBlocuri: DDP(torch.compile(model))": {"grafuri_dynamo": 1, "grafuri": 3, "operatii": 9, "intreruperi": 0},
        "ReteaBlocuri: DDP(torch.compile(model))" + distribuit.FARA_DDPOPTIMIZER:
            {"grafuri_dynamo": 1, "grafuri": 2, "operatii": 9, "intreruperi": 0},
    }
    distribuit.arata_plasari(plasari)
    iesire = capsys.readouterr().out
    assert "Dynamo a capturat 2 grafuri, pe care DDPOptimizer le-a tăiat în 21 de grafuri AOTAutograd." in iesire
    assert "[optimize_ddp=False]: Dynamo a capturat 1 graf, pe care l-a tăiat în 2 grafuri AOTAutograd." in iesire
    assert "dă 3 grafuri AOTAutograd, mai puține decât torch.compile(DDP(model)) (21)." in iesire
    momente = {"all_reduce": [1.0, 5.0, 9.0], "sfarsit_calcul": 4.0, "intoarcere": 10.0}
    m = distribuit.MasuratoareDDP(mod=True, galeata_mb=2, all_reduce=[3], suprapuse=[1], momente_ms=momente,
                                  straturi_all_reduce=[["cap"], ["blocuri.1.liniar"], ["blocuri.2.liniar"]])
    distribuit.arata_suprapunerea([m])
    rand = capsys.readouterr().out.strip()
    # cele de după nu duc primul strat al modelului: doar le numește, fără explicația „gata ultimii”
    assert rand.endswith("1 din 3 all-reduce-uri a pornit în timpul calculului înapoi, 2 după el, cu gradienții lui "
                         "blocuri.1.liniar și blocuri.2.liniar."), rand
    assert not cifre.probleme_de_format(iesire + rand)

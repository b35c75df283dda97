"""Cât lucrează GPU-ul într-o buclă (`masurare.ocupare_gpu` și ce stă sub ea) și cuvântul care
urmează din asta: limitat de GPU, limitat de procesor, echilibrat. Urmele sunt sintetice sau vin
din GPU-ul de jucărie (`GPUSimulat`), deci testele rulează pe orice mașină."""

from types import SimpleNamespace

import pytest
import torch

from curs_compilare import masurare
from curs_compilare.masurare import (
    GPUSimulat,
    Masuratoare,
    OcupareGPU,
    clasifica_limitarea,
    lungime_reuniune,
    ocupare_din_ferestre,
    ocupare_gpu_simulat,
    raport_din,
)


# ---------------------------------------------------------------------------------------------
# Reuniunea intervalelor
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "intervale, asteptat",
    [
        ([], 0.0),
        ([(0, 1)], 1.0),
        ([(0, 1), (2, 3)], 2.0),  # un gol între ele nu se numără
        ([(0, 2), (1, 3)], 3.0),  # suprapuse: o singură dată
        ([(0, 10), (2, 3), (4, 5)], 10.0),  # cuprinse în altul
        ([(0, 1), (1, 2)], 2.0),  # lipite
        ([(5, 6), (0, 1), (0.5, 5.5)], 6.0),  # în altă ordine
        ([(1, 1), (2, 1)], 0.0),  # de lungime zero sau întoarse
    ],
)
def test_lungimea_reuniunii(intervale, asteptat):
    assert lungime_reuniune(intervale) == pytest.approx(asteptat)


def test_reuniunea_nu_trece_de_suma_si_nici_de_acoperire():
    import random

    rng = random.Random(3)
    for _ in range(200):
        intervale = []
        for _ in range(rng.randint(1, 30)):
            a = rng.uniform(0, 100)
            intervale.append((a, a + rng.uniform(0, 20)))
        reuniune = lungime_reuniune(intervale)
        assert reuniune <= sum(b - a for a, b in intervale) + 1e-9
        assert reuniune <= max(b for _, b in intervale) - min(a for a, _ in intervale) + 1e-9


# ---------------------------------------------------------------------------------------------
# Ocuparea dintr-o urmă sintetică: kernel-uri suprapuse, goluri, marcaje
# ---------------------------------------------------------------------------------------------


def test_urma_sintetica_cu_suprapuneri_si_goluri():
    # fereastra: de la 0 la 10 (procesorul); GPU-ul: [1, 4] și [3, 5] suprapuse (4 unități), apoi
    # un gol, [7, 9] (2 unități). Suma duratelor ar fi 7, reuniunea e 6.
    o = ocupare_din_ferestre([(0.0, 10.0, [(1, 4), (3, 5), (7, 9)])], pasi=2)
    assert o.lucru_s == pytest.approx(6.0) and o.fereastra_s == pytest.approx(10.0)
    assert o.suma_kerneluri_s == pytest.approx(7.0)
    assert o.parte == pytest.approx(0.6) and o.asteptare == pytest.approx(0.4)


def test_partea_nu_trece_de_100_la_sute_cand_kerneluri_se_suprapun():
    # un marcaj copiat pe axa GPU-ului și kernel-urile din el acopereau de două ori același timp:
    # suma duratelor (12) ar fi trecut de fereastră (10), reuniunea nu
    o = ocupare_din_ferestre([(0.0, 10.0, [(0, 10), (0, 1), (1, 2)])], pasi=1)
    assert o.suma_kerneluri_s > o.fereastra_s
    assert o.parte == pytest.approx(1.0)


def test_fereastra_tine_pana_la_ultimul_lucru_al_gpu_ului_si_taie_ce_era_inainte():
    # procesorul a terminat la 4, GPU-ul la 12; lucrul de la -3 la 1 a început înaintea ferestrei
    o = ocupare_din_ferestre([(0.0, 4.0, [(-3, 1), (2, 12)])], pasi=1)
    assert o.fereastra_s == pytest.approx(12.0)
    assert o.lucru_s == pytest.approx(11.0)
    assert 0.0 <= o.parte <= 1.0


def test_mai_multe_ferestre_se_aduna_si_fiecare_isi_pastreaza_partea():
    o = ocupare_din_ferestre([(0, 10, [(0, 9.5)]), (20, 30, [(20, 25)])], pasi=5)
    assert o.parti == pytest.approx((0.95, 0.5))
    assert o.parte == pytest.approx(14.5 / 20)
    assert o.ferestre == 2 and o.la_limita  # o fereastră „limitat de GPU”, alta „de procesor”


def test_lucrul_lansat_da_timpul_pe_pas_fara_umplere():
    # GPU-ul lucrează tot timpul (umplerea, apoi 4 pași de câte 2): perioada e cea a GPU-ului
    o = ocupare_din_ferestre([(0.0, 3.0, [(0, 1), (1, 3), (3, 5), (5, 7), (7, 9)])], pasi=4,
                             lansate=[[(1, 3), (3, 5), (5, 7), (7, 9)]])
    assert o.parte == pytest.approx(1.0)
    assert o.lucru_pe_pas_s == pytest.approx(2.0) and o.pe_pas_s == pytest.approx(2.0)


def test_timpul_pe_nume_e_pe_pas():
    kerneluri = [masurare.EvenimentKernel("gemm", 0, 300), masurare.EvenimentKernel("relu", 300, 100)] * 4
    o = ocupare_din_ferestre([(0, 1, [(0, 0.5)])] * 2, pasi=2, kerneluri=kerneluri)
    assert o.timp_pe_nume() == pytest.approx({"gemm": 0.3, "relu": 0.1})
    assert o.kerneluri_pe_pas == pytest.approx(2.0)


# ---------------------------------------------------------------------------------------------
# Cuvântul: limitat de GPU, limitat de procesor, echilibrat
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "parte, cuvant",
    [(1.0, "gpu"), (0.95, "gpu"), (0.9, "gpu"), (0.89, "echilibrat"), (0.6, "echilibrat"),
     (0.59, "procesor"), (0.15, "procesor"), (0.0, "procesor")],
)
def test_clasificarea_dupa_cat_asteapta_gpu_ul(parte, cuvant):
    assert clasifica_limitarea(parte) == cuvant
    assert cuvant in masurare.LIMITARI


def _ocupare_simulata(lansare_s, lucrare_s, pasi=10):
    gpu = GPUSimulat(durata_lucrare_s=lucrare_s, durata_lansare_s=lansare_s, durata_compilare_s=0.0)
    return ocupare_gpu_simulat(gpu, pasi=pasi)


def test_gpu_simulat_limitat_de_gpu_chiar_cu_procesorul_ocupat():
    # Pasul de antrenare al capitolului 01, în miniatură: procesorul lucrează 80% din timp
    # (lansarea durează 8 ms), dar GPU-ul (10 ms pe pas) nu așteaptă niciodată. Vechea regulă
    # („procesorul e ocupat cel puțin 70%”) l-ar fi numit limitat de procesor.
    o = _ocupare_simulata(0.008, 0.010)
    assert o.limitare == "gpu", str(o)
    assert o.parte > 0.95 and not o.la_limita
    assert o.lucru_pe_pas_s == pytest.approx(0.010, rel=0.05)


def test_gpu_simulat_limitat_de_procesor():
    # Stiva de la lotul 1 din capitolul 04, în miniatură: lucrul e mic, lansarea e scumpă.
    o = _ocupare_simulata(0.002, 0.0003)
    assert o.limitare == "procesor", str(o)
    assert o.parte < 0.3


def test_gpu_simulat_echilibrat():
    # lansare și lucru de durate apropiate: GPU-ul așteaptă o parte din timp, dar nu mult
    o = _ocupare_simulata(0.0055, 0.004)
    assert o.limitare == "echilibrat", str(o)
    assert 0.62 < o.parte < 0.85


def test_textul_ocuparii_spune_cuvantul_si_procentul():
    o = _ocupare_simulata(0.002, 0.0003, pasi=5)
    text = str(o)
    assert "limitat de procesor" in text and "%" in text and "GPU-ul lucrează" in text


# ---------------------------------------------------------------------------------------------
# Ceasul ales de compara și limitarea purtată de măsurători și rapoarte
# ---------------------------------------------------------------------------------------------


def _ocupare_fixa(parte, pasi=5):
    return OcupareGPU(lucru_s=parte, fereastra_s=1.0, pasi=pasi, parti=(parte,) * 3)


def test_ceasul_gpu_doar_cand_toate_variantele_sunt_limitate_de_gpu():
    ceas, motiv = masurare._ceas_dupa_ocupare({"eager": _ocupare_fixa(0.97), "compilat": _ocupare_fixa(0.95)}, 2)
    assert ceas == "gpu" and "limitate de GPU" in motiv and "97%" in motiv
    ceas, motiv = masurare._ceas_dupa_ocupare({"eager": _ocupare_fixa(0.97), "compilat": _ocupare_fixa(0.3)}, 2)
    assert ceas == "perete" and "„compilat” e limitat de procesor" in motiv and "30%" in motiv
    assert "depind și de procesorul mașinii" in motiv
    ceas, motiv = masurare._ceas_dupa_ocupare({"pas": _ocupare_fixa(0.75)}, 1)
    assert ceas == "perete" and "apelul e echilibrat" in motiv and "cifra depinde" in motiv
    ceas, motiv = masurare._ceas_dupa_ocupare({"pas": None}, 1)
    assert ceas == "perete" and "profilerul" in motiv


def test_compara_pe_gpu_alege_ceasul_dupa_ocupare(monkeypatch):
    # pe orice mașină: „GPU-ul” e prefăcut, iar ocuparea e dată de test
    ocupari = {"limitat de procesor": 0.2, "limitat de GPU": 0.97}
    cerute = []

    def ocupare_prefacuta(apel, *argumente, estimare_s=None, **optiuni):
        nume = apel.__defaults__[0].__name__
        cerute.append(nume)
        return _ocupare_fixa(ocupari[nume])

    def rapid():
        pass

    def lent():
        pass

    rapid.__name__, lent.__name__ = "limitat de procesor", "limitat de GPU"
    monkeypatch.setattr(masurare, "ocupare_gpu", ocupare_prefacuta)
    c = masurare.compara({"rapid": rapid, "lent": lent}, runde=2, timp_minim_s=0.01, pe_gpu=True)
    assert sorted(cerute) == sorted(ocupari)
    assert c.ceas == "perete" and "limitat de procesor" in c.motiv_ceas
    assert c["rapid"].limitare == "procesor" and c["lent"].limitare == "gpu"
    assert c["rapid"].ocupare_gpu == pytest.approx(0.2)
    assert c.accelerare("lent", "rapid").limitare == "procesor"


def test_pe_procesor_nu_se_profileaza_nimic(monkeypatch):
    monkeypatch.setattr(masurare, "ocupare_gpu", lambda *a, **k: pytest.fail("pe procesor nu se măsoară ocuparea"))
    c = masurare.compara({"a": lambda: None}, runde=2, timp_minim_s=0.01, pe_gpu=False)
    assert c.ceas == "perete" and c["a"].limitare == "" and c["a"].ocupare_gpu is None


def test_raportul_poarta_limitarea_cea_mai_apropiata_de_procesor():
    def m(limitare):
        return Masuratoare(1e-3, 1e-3, 1e-3, 10, "x", mediane_runde=(1e-3,) * 3, limitare=limitare)

    assert raport_din(m("gpu"), m("gpu")).limitare == "gpu"
    assert raport_din(m("gpu"), m("echilibrat")).limitare == "echilibrat"
    assert raport_din(m("procesor"), m("echilibrat")).limitare == "procesor"
    assert raport_din(m(""), m("")).limitare == ""


def test_ocuparea_pe_o_masina_fara_gpu_e_none(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert masurare.ocupare_gpu(lambda: None) is None


# ---------------------------------------------------------------------------------------------
# Ce e lucru al GPU-ului în urma profilerului
# ---------------------------------------------------------------------------------------------


def _eveniment(nume, dispozitiv, adnotare=False, fel=""):
    tip = torch.autograd.DeviceType.CUDA if dispozitiv == "cuda" else torch.autograd.DeviceType.CPU
    return SimpleNamespace(name=nume, device_type=tip, is_user_annotation=adnotare, activity_type=fel)


def test_marcajele_copiate_pe_axa_gpu_nu_sunt_lucru():
    evenimente = [
        _eveniment("Optimizer.step#AdamW.step", "cpu", adnotare=True),
        _eveniment("Optimizer.step#AdamW.step", "cuda"),  # copia de pe axa GPU-ului
        _eveniment("ProfilerStep#1", "cuda", adnotare=True),
        _eveniment("altceva", "cuda", fel="gpu_user_annotation"),
        _eveniment("triton_poi_fused_add_0", "cuda"),
        _eveniment("Memcpy HtoD (Pageable -> Device)", "cuda"),
        _eveniment("aten::add", "cpu"),
    ]
    adnotari = masurare._nume_adnotari(evenimente)
    lucru = [e.name for e in evenimente if masurare._e_lucru_gpu(e, adnotari)]
    assert lucru == ["triton_poi_fused_add_0", "Memcpy HtoD (Pageable -> Device)"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="are nevoie de un GPU")
def test_ocupare_gpu_pe_un_gpu_adevarat():
    a = torch.randn(2048, 2048, device="cuda")
    mare = masurare.ocupare_gpu(lambda: a @ a)
    assert mare is not None and 0.0 < mare.parte <= 1.0 and mare.kerneluri
    mic = torch.randn(8, device="cuda")
    lansari = masurare.ocupare_gpu(lambda: [mic.add_(1) for _ in range(20)])
    assert lansari is not None and lansari.limitare == "procesor"


def _ev(nume, dispozitiv, start, sfarsit, id=0, adnotare=False):
    tip = torch.autograd.DeviceType.CUDA if dispozitiv == "cuda" else torch.autograd.DeviceType.CPU
    return SimpleNamespace(name=nume, device_type=tip, time_range=SimpleNamespace(start=start, end=sfarsit),
                           id=id, is_user_annotation=adnotare, activity_type="")


def _urma_profiler():
    """Urma (în µs) a două ferestre de câte 4 pași: umplerea lansează un kernel care mai lucrează
    după începutul ferestrei; un marcaj `Optimizer.step` e copiat pe axa GPU-ului."""
    ev = [
        _ev("curs_compilare::umplere_0", "cpu", 0, 10, adnotare=True),
        _ev("curs_compilare::fereastra_0", "cpu", 10, 50, adnotare=True),
        _ev("curs_compilare::umplere_1", "cpu", 100, 110, adnotare=True),
        _ev("curs_compilare::fereastra_1", "cpu", 110, 150, adnotare=True),
        _ev("Optimizer.step#AdamW.step", "cpu", 19, 45, adnotare=True),
        _ev("Optimizer.step#AdamW.step", "cuda", 20, 60),
    ]
    lansari = {1: 5, 2: 12, 3: 20, 4: 30, 5: 40, 6: 105, 7: 112, 8: 120, 9: 130, 10: 140}
    pe_gpu = {1: (6, 20), 2: (20, 30), 3: (30, 40), 4: (40, 50), 5: (50, 60),
              6: (106, 112), 7: (115, 125), 8: (125, 135), 9: (135, 145), 10: (145, 155)}
    for id, t in lansari.items():
        ev.append(_ev("cudaLaunchKernel", "cpu", t, t + 1, id=id))
        ev.append(_ev(f"triton_kernel_{'umplere' if id in (1, 6) else 'pas'}", "cuda", *pe_gpu[id], id=id))
    return ev


MARCAJE = [("curs_compilare::umplere_0", "curs_compilare::fereastra_0"),
           ("curs_compilare::umplere_1", "curs_compilare::fereastra_1")]


def test_ocuparea_din_evenimentele_profilerului():
    o = masurare.ocupare_din_evenimente(_urma_profiler(), MARCAJE, pasi=4)
    # fereastra 0: GPU-ul lucrează de la 10 (coada umplerii) până la 60, fără goluri; marcajul
    # copiat pe axa GPU-ului nu se numără a doua oară
    # fereastra 1: [110, 112] din umplere, gol [112, 115], apoi lipit până la 155
    assert o.parti == pytest.approx((1.0, 42 / 45))
    assert o.lucru_s == pytest.approx(92e-6) and o.fereastra_s == pytest.approx(95e-6)
    # kernel-urile numărate sunt cele lansate de cei 4 pași ai fiecărei ferestre, nu și umplerile
    assert [k.nume for k in o.kerneluri] == ["triton_kernel_pas"] * 8
    assert o.lucru_pe_pas_s == pytest.approx(10e-6) and o.kerneluri_pe_pas == pytest.approx(1.0)
    assert o.timp_pe_nume() == pytest.approx({"triton_kernel_pas": 0.01})


def test_fara_un_marcaj_ocuparea_nu_se_poate_citi():
    fara = [e for e in _urma_profiler() if e.name != "curs_compilare::fereastra_1"]
    assert masurare.ocupare_din_evenimente(fara, MARCAJE, pasi=4) is None


def test_fara_corelari_kernelurile_se_aleg_dupa_momentul_inceperii():
    fara_runtime = [e for e in _urma_profiler() if e.name != "cudaLaunchKernel"]
    o = masurare.ocupare_din_evenimente(fara_runtime, MARCAJE, pasi=4)
    assert o.parti == pytest.approx((1.0, 42 / 45))
    # fără corelări, umplerea ferestrei 1 (pornită la 106, înaintea ferestrei) rămâne pe dinafară
    assert len(o.kerneluri) == 8


# ---------------------------------------------------------------------------------------------
# Profilerul încetinește procesorul: durata apelului, și fără el
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lansare_s, lucrare_s", [(0.002, 0.0005), (0.0005, 0.003)])
def test_durata_apelului_in_bucla_e_cea_din_regim(lansare_s, lucrare_s):
    """Limitat de procesor, un apel durează cât lansarea; limitat de GPU, cât lucrul GPU-ului.
    Ce au în comun cele două bucle (umplerea rămasă în coadă, sincronizarea) nu intră."""
    gpu = GPUSimulat(durata_lucrare_s=lucrare_s, durata_lansare_s=lansare_s, durata_compilare_s=0.0)
    gpu.lanseaza()
    durate = masurare.durata_apel_in_bucla(gpu.lanseaza, pasi=8, ferestre=3, sincronizare=gpu.sincronizeaza)
    assert len(durate) == 3
    asteptat = max(lansare_s, lucrare_s)
    assert sorted(durate)[1] == pytest.approx(asteptat, rel=0.35), durate


def test_profilerul_lent_nu_mai_face_bucla_limitata_de_procesor():
    """Capitolul 01 pe o gazdă lentă: sub profiler, fiecare lansare costă în plus, iar
    fereastra profilată arată GPU-ul așteptând (56% în loc de 75%). Fără profiler, bucla e
    echilibrată; cuvântul și procentul vin din bucla fără profiler, iar textul spune de ce
    fereastra profilată a fost mai lungă."""
    gpu = GPUSimulat(durata_lucrare_s=0.003, durata_lansare_s=0.004, durata_compilare_s=0.0)
    o = ocupare_gpu_simulat(gpu, pasi=8, cost_profiler_s=0.003)
    assert o.parte_sub_profiler < 0.5  # sub profiler: 3 ms de lucru în 7 ms
    assert o.parte == pytest.approx(0.75, abs=0.12)  # fără profiler: 3 ms în 4 ms
    assert o.limitare == "echilibrat", str(o)
    assert o.pe_pas_s == pytest.approx(0.004, rel=0.3)
    assert o.pe_pas_sub_profiler_s == pytest.approx(0.007, rel=0.3)
    text = str(o)
    assert "cronometrat fără profiler" in text and "profilerul încetinește procesorul" in text


def test_fara_incetinire_textul_nu_pomeneste_profilerul_degeaba():
    gpu = GPUSimulat(durata_lucrare_s=0.004, durata_lansare_s=0.0005, durata_compilare_s=0.0)
    o = ocupare_gpu_simulat(gpu, pasi=6, cost_profiler_s=0.0)
    assert o.limitare == "gpu" and o.parte <= 1.0
    assert "încetinește" not in str(o)


def test_partea_fara_profiler_nu_trece_de_100_si_ferestrele_spun_limita():
    o = OcupareGPU(lucru_s=0.03, fereastra_s=0.031, pasi=10, parti=(0.97, 0.97, 0.97), lucru_lansat_s=0.03,
                   apeluri_fara_profiler_s=(0.00095, 0.0011, 0.0016))
    assert o.lucru_pe_pas_s == pytest.approx(0.001)
    assert o.parte == pytest.approx(0.001 / 0.0011)  # mediana duratelor
    assert o.parti_ferestre[0] == 1.0  # 1 ms de lucru într-un apel de 0,95 ms: cel mult 100%
    assert o.la_limita  # 100%, 91% și 62%: ferestrele nu cad de aceeași parte a pragurilor
    fara = OcupareGPU(lucru_s=0.5, fereastra_s=1.0, pasi=5, parti=(0.5, 0.5, 0.5))
    assert fara.parte == fara.parte_sub_profiler == 0.5 and fara.apel_fara_profiler_s is None


class _ProfilerPrefacut:
    """În locul lui `torch.profiler.profile`: nu urmărește nimic, iar `events()` dă urma dată."""

    urma: list = []

    def __init__(self, *argumente, **optiuni):
        pass

    def start(self):
        pass

    def stop(self):
        pass

    def events(self):
        return list(self.urma)


def test_ocupare_gpu_de_la_profiler_la_bucla_fara_profiler(monkeypatch):
    """Tot drumul lui `ocupare_gpu`, pe orice mașină: profilerul e prefăcut (urma sintetică de mai
    sus, două ferestre de 4 pași), apoi bucla e cronometrată fără profiler, cu un apel care
    durează 2 ms (limitat de procesor: urma dă 10 µs de lucru pe GPU pe apel). Partea ocupată
    vine din bucla fără profiler. Ceasul e și el prefăcut (înaintează 2 ms la fiecare apel), ca
    testul să nu depindă de cât de încărcată e mașina."""
    acum = [0.0]
    monkeypatch.setattr(masurare, "time", SimpleNamespace(perf_counter=lambda: acum[0]))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(masurare, "sincronizeaza", lambda: None)
    monkeypatch.setattr(_ProfilerPrefacut, "urma", _urma_profiler())
    monkeypatch.setattr(torch.profiler, "profile", _ProfilerPrefacut)
    apeluri = []

    def apel():
        apeluri.append(1)
        acum[0] += 2e-3

    o = masurare.ocupare_gpu(apel, pasi=4, ferestre=2, estimare_s=2e-3)
    assert o is not None and o.parte_sub_profiler == pytest.approx(92 / 95)
    assert len(o.apeluri_fara_profiler_s) == 2
    assert o.apeluri_fara_profiler_s == pytest.approx((2e-3, 2e-3))  # (16 ms − 8 ms) / 4 pași
    assert o.parte == pytest.approx(10e-6 / 2e-3)
    assert o.pe_pas_s == pytest.approx(2e-3)
    assert o.limitare == "procesor"  # 10 µs de lucru pe GPU într-un apel de 2 ms
    # sub profiler: încălzirea + 2 × (umplere + 4 pași); fără: 2 × (1 + 4 + 1 + 8)
    assert len(apeluri) == 1 + 2 * 5 + 2 * 14


def test_ocupare_gpu_fara_ferestrele_in_urma_e_none(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(masurare, "sincronizeaza", lambda: None)
    monkeypatch.setattr(_ProfilerPrefacut, "urma", [])
    monkeypatch.setattr(torch.profiler, "profile", _ProfilerPrefacut)
    assert masurare.ocupare_gpu(lambda: None, pasi=3, ferestre=2, estimare_s=1e-5) is None
